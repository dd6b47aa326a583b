//! sacrebleu's default `13a` tokenizer (mteval-v13a), over code points as Python's `re`.

/// `Tokenizer13a()(line)`: the same string sacrebleu produces.
pub fn tokenize_13a(line: &str) -> String {
    let mut line = line
        .replace("<skipped>", "")
        .replace("-\n", "")
        .replace('\n', " ");
    if line.contains('&') {
        line = line
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">");
    }
    let s: Vec<char> = format!(" {line} ").chars().collect();
    // ([\{-\~\[-\` -\&\(-\+\:-\@\/]) → ' \1 '
    let mut a = Vec::with_capacity(s.len() * 2);
    for c in s {
        if is_symbol(c) {
            a.extend([' ', c, ' ']);
        } else {
            a.push(c);
        }
    }
    let digit = |c: char| c.is_ascii_digit();
    let period_comma = |c: char| c == '.' || c == ',';
    // ([^0-9])([\.,]) → '\1 \2 '
    let b = pairs(
        &a,
        |x, y| !digit(x) && period_comma(y),
        |x, y| [x, ' ', y, ' '],
    );
    // ([\.,])([^0-9]) → ' \1 \2'
    let c = pairs(
        &b,
        |x, y| period_comma(x) && !digit(y),
        |x, y| [' ', x, ' ', y],
    );
    // ([0-9])(-) → '\1 \2 '
    let d = pairs(&c, |x, y| digit(x) && y == '-', |x, y| [x, ' ', y, ' ']);
    let joined: String = d.into_iter().collect();
    super::super::py_split(&joined)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first regex's class: `{`-`~`, `[`-`` ` ``, space-`&`, `(`-`+`, `:`-`@`, `/`.
fn is_symbol(c: char) -> bool {
    matches!(c, '{'..='~' | '['..='`' | ' '..='&' | '('..='+' | ':'..='@' | '/')
}

/// `re.sub` of a two-character pattern: non-overlapping matches, left to right.
fn pairs(
    s: &[char],
    hit: impl Fn(char, char) -> bool,
    with: impl Fn(char, char) -> [char; 4],
) -> Vec<char> {
    let mut out = Vec::with_capacity(s.len() + s.len() / 2);
    let mut i = 0;
    while i < s.len() {
        if i + 1 < s.len() && hit(s[i], s[i + 1]) {
            out.extend(with(s[i], s[i + 1]));
            i += 2;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn sacrebleu_tokens() {
        assert_eq!(super::tokenize_13a("Hello, world."), "Hello , world .");
        assert_eq!(
            super::tokenize_13a("3.14 and 1,000-2"),
            "3.14 and 1,000 - 2"
        );
        assert_eq!(super::tokenize_13a("a&amp;b (c)"), "a & b ( c )");
    }
}
