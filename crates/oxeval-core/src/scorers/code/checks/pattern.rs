//! `matches`' RegExp with JavaScript semantics: the `regress` crate (an ECMAScript regex
//! engine) over the text's UTF-16 code units (`u`/`v`: code points, else code units, as JS).
//!
//! Each run tests from index 0: Mastra reuses ONE RegExp object across runs, so with `g`
//! or `y` its `lastIndex` carries over (a second run on the same text scores 0); oxeval
//! does not copy that. `y` (sticky) matches only at index 0, as a fresh RegExp's `test`.

use regress::{Flags, Regex};

pub struct Pattern {
    regex: Regex,
    unicode: bool,
    sticky: bool,
    /// `pattern.toString()`: `/${source}/${flags}`.
    pub display: String,
}

impl Pattern {
    /// `exact`: Mastra's `new RegExp(`^${source}$`, flags)`.
    pub fn new(source: &str, flags: &str, exact: bool) -> Result<Pattern, String> {
        let unicode = flags.contains('u') || flags.contains('v');
        let mut engine_flags = flags.to_owned();
        if flags.contains('v') && !flags.contains('u') {
            engine_flags.push('u');
        }
        let text = if exact {
            format!("^{source}$")
        } else {
            source.to_owned()
        };
        let regex = Regex::with_flags(&text, Flags::from(engine_flags.as_str())).map_err(|e| {
            format!("pattern /{source}/{flags} is not supported by oxeval's ECMAScript regex engine (regress): {e}")
        })?;
        Ok(Pattern {
            regex,
            unicode,
            sticky: flags.contains('y'),
            display: format!("/{source}/{flags}"),
        })
    }

    /// `pattern.test(text)` of a fresh RegExp.
    pub fn test(&self, text: &str) -> bool {
        let units: Vec<u16> = text.encode_utf16().collect();
        let first = if self.unicode {
            self.regex
                .find_from_utf16(&units, 0)
                .next()
                .map(|m| m.start())
        } else {
            self.regex
                .find_from_ucs2(&units, 0)
                .next()
                .map(|m| m.start())
        };
        match first {
            Some(start) => !self.sticky || start == 0,
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_regex_semantics() {
        let t = |src: &str, flags: &str, exact: bool, text: &str| {
            Pattern::new(src, flags, exact).unwrap().test(text)
        };
        assert!(t(r"\d+°F", "g", false, "It is 72°F"));
        assert!(
            t(r"\d+°F", "g", false, "It is 72°F"),
            "no lastIndex carried over"
        );
        assert!(!t(r"\d+°F", "y", false, "It is 72°F"));
        assert!(t(r"It", "y", false, "It is 72°F"));
        assert!(t(r"(?<=\$)\d+", "", false, "cost $42"));
        assert!(t(r"(\w)\1", "", false, "hello"));
        assert!(t(r"PARIS", "i", false, "paris"));
        // without u one emoji is two code units
        assert!(!t(r"^.$", "", false, "😀"));
        assert!(t(r"^.$", "u", false, "😀"));
        assert!(t(r"^..$", "", false, "😀"));
        // exact: ^${source}$ (no group: `a|b` → `^a|b$`)
        assert!(t(r"a|b", "", true, "ab"));
        assert!(!t(r"ab", "", true, "xab"));
        assert!(t(r"^a$", "m", false, "x\na"));
        assert_eq!(Pattern::new("a", "gi", false).unwrap().display, "/a/gi");
        assert!(Pattern::new("(", "", false).is_err());
    }
}
