//! Lenient but faithful extraction of the JSON value(s) a judge meant to send.
//!
//! Three steps, each linear in the length of the text and none of them recursive:
//!
//! 1. [`split_reasoning`] removes `<think>`/`<thinking>`/`<reasoning>` blocks that reasoning
//!    models put before (or around) the answer, and keeps their text for the record.
//! 2. [`candidates`] scans the answer with a bracket/string state machine for balanced
//!    top-level `{…}`/`[…]` spans. Nesting deeper than [`MAX_DEPTH`] is a format error,
//!    decided here, before anything is parsed.
//! 3. Each span is parsed once by an iterative parser of a small superset of JSON.
//!
//! The only leniencies are those that cannot change what the judge wrote: prose and code
//! fences around the JSON, trailing commas, `//` and `/* */` comments, bare identifier
//! keys, raw control characters and `\'` inside strings, and Python literals (single-quoted
//! strings, `True`/`False`/`None`). Nothing is ever closed or cut on the judge's behalf: a
//! value that ends before its closing quote or bracket is a format error, not a repair.

use serde_json::{Map, Value};

/// Deepest nesting of arrays/objects accepted. `[[1]]` is 2 levels deep.
pub const MAX_DEPTH: usize = 256;

// ---------------------------------------------------------------------------------------
// Reasoning blocks
// ---------------------------------------------------------------------------------------

const TAG_NAMES: [&str; 3] = ["think", "thinking", "reasoning"];

#[derive(Clone, Copy, Debug)]
struct Tag {
    start: usize,
    end: usize,
    name: usize,
    close: bool,
}

/// Every `<name>` / `</name>` of [`TAG_NAMES`] (ASCII case-insensitive, whitespace allowed
/// before `>`), in text order.
fn find_tags(text: &str) -> Vec<Tag> {
    let b = text.as_bytes();
    let mut tags = Vec::new();
    let mut i = 0;
    while let Some(off) = b[i..].iter().position(|&c| c == b'<') {
        let start = i + off;
        let mut j = start + 1;
        let close = b.get(j) == Some(&b'/');
        if close {
            j += 1;
        }
        let name_start = j;
        while j < b.len() && b[j].is_ascii_alphabetic() {
            j += 1;
        }
        let name = &b[name_start..j];
        let known = TAG_NAMES
            .iter()
            .position(|n| n.as_bytes().eq_ignore_ascii_case(name));
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        match known {
            Some(name) if b.get(j) == Some(&b'>') => {
                tags.push(Tag {
                    start,
                    end: j + 1,
                    name,
                    close,
                });
                i = j + 1;
            }
            _ => i = start + 1,
        }
    }
    tags
}

/// Tells whether a position of the answer is inside a double-quoted string of a bracketed
/// span, so that a tag quoted in a JSON string (a judge citing a reasoning model's output)
/// is left alone.
#[derive(Default)]
struct QuoteScan {
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl QuoteScan {
    fn feed(&mut self, bytes: &[u8]) {
        for &c in bytes {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if c == b'\\' {
                    self.escaped = true;
                } else if c == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match c {
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => self.depth = self.depth.saturating_sub(1),
                b'"' if self.depth > 0 => self.in_string = true,
                _ => {}
            }
        }
    }
}

/// Split judge text into `(answer, reasoning)`.
///
/// Rules:
/// - A block opens with `<think>`, `<thinking>` or `<reasoning>` (tag names ASCII
///   case-insensitive) and ends at the first later closing tag of the same name or, if the
///   text has none, of another of these names. Any number of blocks is removed.
/// - A block that is never closed runs to the end of the text: `<think> …` alone is all
///   reasoning and the answer is empty.
/// - A closing tag with no open block before it (servers that strip only the opening tag:
///   `reasoning…</think>{json}`) makes everything before it reasoning.
/// - A tag inside a double-quoted string of a `{…}`/`[…]` span is content, not a tag.
///
/// Both parts are trimmed; reasoning is `None` when no tag was found or it was blank.
pub fn split_reasoning(text: &str) -> (String, Option<String>) {
    let tags = find_tags(text);
    if tags.is_empty() {
        return (text.trim().to_string(), None);
    }
    // next_same[i][k]: first closing tag of name k at index >= i; next_any[i]: of any name.
    // Precomputed so that finding every block's end stays linear.
    let n = tags.len();
    let mut next_same = vec![[usize::MAX; 3]; n + 1];
    let mut next_any = vec![usize::MAX; n + 1];
    for i in (0..n).rev() {
        next_same[i] = next_same[i + 1];
        next_any[i] = next_any[i + 1];
        if tags[i].close {
            next_same[i][tags[i].name] = i;
            next_any[i] = i;
        }
    }

    let mut answer = String::new();
    let mut reasoning: Vec<String> = Vec::new();
    let mut segment = 0; // start of the answer text not yet copied
    let mut fed = 0; // how far the quote scan has read
    let mut scan = QuoteScan::default();
    let mut ti = 0;
    while ti < n {
        let tag = tags[ti];
        scan.feed(&text.as_bytes()[fed..tag.start]);
        fed = tag.start;
        if scan.in_string {
            ti += 1;
            continue;
        }
        answer.push_str(&text[segment..tag.start]);
        if tag.close {
            reasoning.push(std::mem::take(&mut answer));
            scan = QuoteScan::default();
            segment = tag.end;
            fed = tag.end;
            ti += 1;
            continue;
        }
        let close = match next_same[ti + 1][tag.name] {
            usize::MAX => next_any[ti + 1],
            same => same,
        };
        if close == usize::MAX {
            reasoning.push(text[tag.end..].to_string());
            segment = text.len();
            break;
        }
        reasoning.push(text[tag.end..tags[close].start].to_string());
        segment = tags[close].end;
        fed = segment;
        ti = close + 1;
    }
    answer.push_str(&text[segment..]);

    let reasoning: Vec<&str> = reasoning
        .iter()
        .map(|r| r.trim())
        .filter(|r| !r.is_empty())
        .collect();
    let reasoning = (!reasoning.is_empty()).then(|| reasoning.join("\n\n"));
    (answer.trim().to_string(), reasoning)
}

// ---------------------------------------------------------------------------------------
// Candidates
// ---------------------------------------------------------------------------------------

/// Every complete top-level JSON object/array in `text`, in text order.
///
/// Call it on the answer part of [`split_reasoning`]; reasoning is not removed here.
/// A balanced span that does not parse is skipped whole (what is inside a broken value is
/// not offered as a candidate), and a span still open at the end of the text (cut off) is
/// not a candidate. `Err` is a short description of the format problem when there is no
/// candidate at all, or when the text is nested more than [`MAX_DEPTH`] levels deep.
pub fn candidates(text: &str) -> Result<Vec<Value>, String> {
    if text.trim().is_empty() {
        return Err("the output was empty".into());
    }
    let scan = scan_spans(text.as_bytes())
        .map_err(|TooDeep| format!("the output is nested more than {MAX_DEPTH} levels deep"))?;
    let mut found = Vec::new();
    let mut problem = None;
    for (start, end) in scan.spans {
        match parse_span(&text[start..end]) {
            Ok(v) => found.push(v),
            Err(p) => problem = Some(p),
        }
    }
    if !found.is_empty() {
        return Ok(found);
    }
    if let Some(what) = scan.cut_off {
        return Err(format!("the JSON was cut off (an unclosed {what})"));
    }
    if let Some(p) = problem {
        return Err(format!("the JSON is malformed: {p}"));
    }
    Err("no JSON object found in the output".into())
}

/// The last candidate of the answer once reasoning blocks are removed; `None` when there
/// is none. Kept for callers that take one value without a schema to choose with.
pub fn extract_json(text: &str) -> Option<Value> {
    let (answer, _) = split_reasoning(text);
    candidates(&answer).ok()?.pop()
}

struct TooDeep;

struct Scan {
    spans: Vec<(usize, usize)>,
    /// What was still open when the text ended inside a span.
    cut_off: Option<&'static str>,
}

impl Scan {
    fn cut(spans: Vec<(usize, usize)>, what: &'static str) -> Self {
        Scan {
            spans,
            cut_off: Some(what),
        }
    }
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// End (exclusive) of the double-quoted string starting at `i`, `None` if it never ends.
fn skip_double(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// Whether the `'` at `j` can close a single-quoted string: what follows it (after
/// whitespace) is a delimiter or the end of the text.
fn single_quote_closes(b: &[u8], j: usize) -> bool {
    let mut k = j + 1;
    while k < b.len() && is_ws(b[k]) {
        k += 1;
    }
    k == b.len() || matches!(b[k], b',' | b'}' | b']' | b':')
}

/// End (exclusive) of the single-quoted string starting at `i`, `None` if it never ends.
/// A quote that cannot close is taken as content here; the parser decides whether it is a
/// real apostrophe or an ambiguity.
fn skip_single(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'\'' if single_quote_closes(b, j) => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// At a `/`: `Some(Some(end))` for a comment ending before `end`, `Some(None)` for a block
/// comment that never ends, `None` if this is no comment.
fn skip_comment(b: &[u8], i: usize) -> Option<Option<usize>> {
    match b.get(i + 1) {
        Some(b'/') => Some(Some(
            b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p + 1),
        )),
        Some(b'*') => Some(
            b[i + 2..]
                .windows(2)
                .position(|w| w == b"*/")
                .map(|p| i + 2 + p + 2),
        ),
        _ => None,
    }
}

/// Find the balanced top-level spans. Outside a span (prose) only `{` and `[` matter;
/// inside one, strings and comments are skipped so that brackets in them do not count.
fn scan_spans(b: &[u8]) -> Result<Scan, TooDeep> {
    let mut spans = Vec::new();
    let mut i = 0;
    'prose: while let Some(off) = b[i..].iter().position(|&c| c == b'{' || c == b'[') {
        let start = i + off;
        let mut open: Vec<u8> = vec![b[start]];
        let mut prev = b[start]; // last significant byte, to know where a value may start
        i = start + 1;
        loop {
            let Some(&c) = b.get(i) else {
                let what = if open.last() == Some(&b'{') {
                    "object"
                } else {
                    "array"
                };
                return Ok(Scan::cut(spans, what));
            };
            match c {
                _ if is_ws(c) => i += 1,
                b'"' => match skip_double(b, i) {
                    Some(end) => {
                        i = end;
                        prev = c;
                    }
                    None => return Ok(Scan::cut(spans, "string")),
                },
                b'\'' if matches!(prev, b'{' | b'[' | b',' | b':') => match skip_single(b, i) {
                    Some(end) => {
                        i = end;
                        prev = c;
                    }
                    None => return Ok(Scan::cut(spans, "string")),
                },
                b'/' => match skip_comment(b, i) {
                    Some(Some(end)) => i = end,
                    Some(None) => return Ok(Scan::cut(spans, "comment")),
                    None => {
                        i += 1;
                        prev = c;
                    }
                },
                b'{' | b'[' => {
                    if open.len() >= MAX_DEPTH {
                        return Err(TooDeep);
                    }
                    open.push(c);
                    i += 1;
                    prev = c;
                }
                b'}' | b']' => {
                    open.pop();
                    i += 1;
                    prev = c;
                    if open.is_empty() {
                        spans.push((start, i));
                        continue 'prose;
                    }
                }
                _ => {
                    i += 1;
                    prev = c;
                }
            }
        }
    }
    Ok(Scan {
        spans,
        cut_off: None,
    })
}

// ---------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------

enum Frame {
    Array(Vec<Value>),
    Object(Map<String, Value>, Option<String>),
}

#[derive(Clone, Copy, PartialEq)]
enum Expect {
    /// A value, or `]` right after `[` or a comma (empty array / trailing comma).
    ValueOrEnd,
    /// A value after `:`.
    Value,
    /// A key, or `}` right after `{` or a comma.
    KeyOrEnd,
    Colon,
    /// `,` or the closing bracket of the innermost frame.
    CommaOrEnd,
}

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn err<T>(&self, what: &str) -> Result<T, String> {
        let at = self.s[..self.i.min(self.s.len())].chars().count();
        Err(format!("{what} at character {at} of the JSON"))
    }

    /// Skip whitespace and comments.
    fn skip_ws(&mut self) -> Result<(), String> {
        loop {
            match self.b.get(self.i) {
                Some(&c) if is_ws(c) => self.i += 1,
                Some(b'/') => match skip_comment(self.b, self.i) {
                    Some(Some(end)) => self.i = end,
                    Some(None) => return self.err("unclosed comment"),
                    None => return Ok(()),
                },
                _ => return Ok(()),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self.b.get(self.i..self.i + 4);
        let code = digits
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit))
            .and_then(|d| u32::from_str_radix(std::str::from_utf8(d).ok()?, 16).ok());
        match code {
            Some(code) => {
                self.i += 4;
                Ok(code)
            }
            None => self.err("bad \\u escape"),
        }
    }

    /// One escape after a backslash (`self.i` is just past the backslash).
    fn escape(&mut self, out: &mut String) -> Result<(), String> {
        let Some(&c) = self.b.get(self.i) else {
            return self.err("unfinished escape");
        };
        self.i += 1;
        let ch = match c {
            b'"' => '"',
            b'\'' => '\'',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4()?;
                let code = if (0xD800..0xDC00).contains(&hi) {
                    if self.b.get(self.i..self.i + 2) != Some(b"\\u") {
                        return self.err("lone surrogate in \\u escape");
                    }
                    self.i += 2;
                    let lo = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return self.err("lone surrogate in \\u escape");
                    }
                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                } else {
                    hi
                };
                match char::from_u32(code) {
                    Some(ch) => ch,
                    None => return self.err("lone surrogate in \\u escape"),
                }
            }
            _ => {
                self.i -= 1;
                return self.err("unknown escape");
            }
        };
        out.push(ch);
        Ok(())
    }

    /// A string starting at the quote at `self.i`, double- or single-quoted.
    fn string(&mut self) -> Result<String, String> {
        let quote = self.b[self.i];
        self.i += 1;
        let mut out = String::new();
        loop {
            let run = self.b[self.i..]
                .iter()
                .position(|&c| c == quote || c == b'\\');
            let Some(run) = run else {
                self.i = self.b.len();
                return self.err("unclosed string");
            };
            out.push_str(&self.s[self.i..self.i + run]);
            self.i += run;
            if self.b[self.i] == b'\\' {
                self.i += 1;
                self.escape(&mut out)?;
                continue;
            }
            // the closing quote?
            if quote == b'"' || single_quote_closes(self.b, self.i) {
                self.i += 1;
                return Ok(out);
            }
            // A single quote that cannot close: an apostrophe only inside a word
            // (don't, l'été); anything else is ambiguous and rejected, never guessed.
            let before = self.s[..self.i].chars().next_back();
            let after = self.s[self.i + 1..].chars().next();
            if before.is_some_and(char::is_alphanumeric) && after.is_some_and(char::is_alphanumeric)
            {
                out.push('\'');
                self.i += 1;
            } else {
                return self.err("ambiguous quote inside a single-quoted string");
            }
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.i;
        while self
            .b
            .get(self.i)
            .is_some_and(|c| matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
        {
            self.i += 1;
        }
        match serde_json::from_str::<Value>(&self.s[start..self.i]) {
            Ok(v @ Value::Number(_)) => Ok(v),
            _ => {
                self.i = start;
                self.err("invalid number")
            }
        }
    }

    fn word(&mut self) -> &str {
        let start = self.i;
        while self
            .b
            .get(self.i)
            .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$')
        {
            self.i += 1;
        }
        &self.s[start..self.i]
    }
}

/// Parse one span found by [`scan_spans`]: exactly one object/array and nothing after it.
/// Iterative, with its own depth bound, so no input can exhaust the stack.
fn parse_span(s: &str) -> Result<Value, String> {
    let mut p = Parser {
        s,
        b: s.as_bytes(),
        i: 0,
    };
    let mut stack: Vec<Frame> = Vec::new();
    let mut expect = Expect::Value;
    loop {
        p.skip_ws()?;
        let Some(&c) = p.b.get(p.i) else {
            return p.err("unexpected end");
        };
        // A finished value (scalar or closed container) to attach to its parent.
        let done: Value = match expect {
            Expect::Value | Expect::ValueOrEnd => match c {
                b'{' | b'[' => {
                    if stack.len() >= MAX_DEPTH {
                        return p.err("nesting too deep");
                    }
                    p.i += 1;
                    if c == b'{' {
                        stack.push(Frame::Object(Map::new(), None));
                        expect = Expect::KeyOrEnd;
                    } else {
                        stack.push(Frame::Array(Vec::new()));
                        expect = Expect::ValueOrEnd;
                    }
                    continue;
                }
                b']' if expect == Expect::ValueOrEnd => {
                    p.i += 1;
                    match stack.pop() {
                        Some(Frame::Array(items)) => Value::Array(items),
                        _ => return p.err("mismatched `]`"),
                    }
                }
                b'"' | b'\'' => Value::String(p.string()?),
                b'-' | b'0'..=b'9' => p.number()?,
                c if c.is_ascii_alphabetic() => {
                    let start = p.i;
                    match p.word() {
                        "true" | "True" => Value::Bool(true),
                        "false" | "False" => Value::Bool(false),
                        "null" | "None" => Value::Null,
                        _ => {
                            p.i = start;
                            return p.err("unexpected word");
                        }
                    }
                }
                _ => return p.err("expected a value"),
            },
            Expect::KeyOrEnd if c == b'}' => {
                p.i += 1;
                match stack.pop() {
                    Some(Frame::Object(map, None)) => Value::Object(map),
                    _ => return p.err("mismatched `}`"),
                }
            }
            Expect::KeyOrEnd => {
                let key = match c {
                    b'"' | b'\'' => p.string()?,
                    c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' => p.word().to_string(),
                    _ => return p.err("expected a key"),
                };
                if let Some(Frame::Object(_, pending)) = stack.last_mut() {
                    *pending = Some(key);
                }
                expect = Expect::Colon;
                continue;
            }
            Expect::Colon => {
                if c != b':' {
                    return p.err("expected `:`");
                }
                p.i += 1;
                expect = Expect::Value;
                continue;
            }
            Expect::CommaOrEnd => {
                p.i += 1;
                match (c, stack.pop()) {
                    (b',', Some(frame)) => {
                        expect = match frame {
                            Frame::Array(_) => Expect::ValueOrEnd,
                            Frame::Object(..) => Expect::KeyOrEnd,
                        };
                        stack.push(frame);
                        continue;
                    }
                    (b']', Some(Frame::Array(items))) => Value::Array(items),
                    (b'}', Some(Frame::Object(map, None))) => Value::Object(map),
                    _ => {
                        p.i -= 1;
                        return p.err("expected `,` or a closing bracket");
                    }
                }
            }
        };
        match stack.last_mut() {
            None => {
                p.skip_ws()?;
                if p.i != p.b.len() {
                    return p.err("unexpected text after the value");
                }
                return match done {
                    Value::Object(_) | Value::Array(_) => Ok(done),
                    _ => p.err("not an object or array"),
                };
            }
            Some(Frame::Array(items)) => items.push(done),
            Some(Frame::Object(map, pending)) => {
                let key = pending.take().unwrap_or_default();
                map.insert(key, done);
            }
        }
        expect = Expect::CommaOrEnd;
    }
}

// ---------------------------------------------------------------------------------------
// Lone surrogate escapes
// ---------------------------------------------------------------------------------------

/// The four hex digits at `b[i..i + 4]` as a code unit.
fn hex4_at(b: &[u8], i: usize) -> Option<u32> {
    let d = b.get(i..i + 4)?;
    d.iter()
        .try_fold(0u32, |acc, &c| Some(acc * 16 + (c as char).to_digit(16)?))
}

/// `text` (JSON, or a judge's answer holding JSON) with every lone UTF-16 surrogate escape
/// inside a double-quoted string (`\ud83d` without its low half, or a low half alone)
/// replaced by `\uFFFD`, and how many were replaced (borrowed when none was).
///
/// One pass over the bytes, aware of strings and escapes: a valid pair
/// (`\ud83d\ude00`) is kept, and so is an escaped backslash followed by `ud83d`
/// (`\\ud83d` is the text `\ud83d`, not an escape). Outside strings nothing changes.
pub fn repair_lone_surrogates(text: &[u8]) -> (std::borrow::Cow<'_, [u8]>, usize) {
    use std::borrow::Cow;
    const FFFD: &[u8] = b"\\uFFFD";
    // fast path: no `\u` followed by d/D and 8-f: nothing to look at
    let maybe = text.windows(4).any(|w| {
        w[0] == b'\\'
            && w[1] == b'u'
            && matches!(w[2], b'd' | b'D')
            && matches!(w[3], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
    });
    if !maybe {
        return (Cow::Borrowed(text), 0);
    }
    let mut out: Vec<u8> = Vec::new();
    let mut copied = 0;
    let mut replaced = 0;
    let mut in_string = false;
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        if !in_string {
            in_string = c == b'"';
            i += 1;
            continue;
        }
        match c {
            b'"' => {
                in_string = false;
                i += 1;
            }
            b'\\' if text.get(i + 1) == Some(&b'u') => match hex4_at(text, i + 2) {
                Some(0xD800..=0xDBFF) => {
                    let paired = text.get(i + 6..i + 8) == Some(b"\\u")
                        && matches!(hex4_at(text, i + 8), Some(0xDC00..=0xDFFF));
                    if paired {
                        i += 12;
                    } else {
                        out.extend_from_slice(&text[copied..i]);
                        out.extend_from_slice(FFFD);
                        replaced += 1;
                        i += 6;
                        copied = i;
                    }
                }
                Some(0xDC00..=0xDFFF) => {
                    out.extend_from_slice(&text[copied..i]);
                    out.extend_from_slice(FFFD);
                    replaced += 1;
                    i += 6;
                    copied = i;
                }
                Some(_) => i += 6,
                None => i += 2,
            },
            // any other escape: the escaped byte is not a quote or a backslash of its own
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    if replaced == 0 {
        return (Cow::Borrowed(text), 0);
    }
    out.extend_from_slice(&text[copied.min(text.len())..]);
    (Cow::Owned(out), replaced)
}

/// [`repair_lone_surrogates`] over text (the output stays valid UTF-8: only ASCII changed).
pub fn repair_lone_surrogates_str(text: &str) -> (std::borrow::Cow<'_, str>, usize) {
    use std::borrow::Cow;
    match repair_lone_surrogates(text.as_bytes()) {
        (Cow::Borrowed(_), _) => (Cow::Borrowed(text), 0),
        (Cow::Owned(bytes), n) => match String::from_utf8(bytes) {
            Ok(s) => (Cow::Owned(s), n),
            Err(_) => (Cow::Borrowed(text), 0),
        },
    }
}

/// The warning for `n` lone surrogate escapes replaced in `what`.
pub fn lone_surrogate_warning(n: usize, what: &str) -> String {
    let (count, verb) = if n == 1 {
        ("1 lone UTF-16 surrogate escape".to_string(), "was")
    } else {
        (format!("{n} lone UTF-16 surrogate escapes"), "were")
    };
    format!(
        "the judge's {what} had {count} (half of a \\uD83D\\uDE00 pair, e.g. an emoji cut in two) that {verb} replaced by U+FFFD"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cands(text: &str) -> Result<Vec<Value>, String> {
        candidates(text)
    }

    #[test]
    fn lenient_cases() {
        let cases: Vec<(&str, Option<Value>)> = vec![
            (
                r#"{"statements":["a","b"]}"#,
                Some(json!({"statements": ["a", "b"]})),
            ),
            ("```json\n{\"a\": 1}\n```", Some(json!({"a": 1}))),
            ("```\n{\"a\": 1}\n```", Some(json!({"a": 1}))),
            (
                "Here is the JSON:\n{\"a\": 1}\nHope this helps!",
                Some(json!({"a": 1})),
            ),
            ("Sure! ```json\n{\"a\": [1, 2]}", Some(json!({"a": [1, 2]}))),
            (r#"{"a": [1, 2,], }"#, Some(json!({"a": [1, 2]}))),
            (r#"{'a': 'x'}"#, Some(json!({"a": "x"}))),
            // truncated: nothing is closed on the judge's behalf
            (
                r#"{"results": [{"result": "yes", "reason": "ok"}, {"result": "no", "rea"#,
                None,
            ),
            (r#"{"claims": ["The sky is blue", "Grass is gre"#, None),
            ("[1, 2, 3]", Some(json!([1, 2, 3]))),
            ("", None),
            ("   ", None),
            ("no json here at all", None),
            ("42", None),
            ("\"just a string\"", None),
        ];
        for (text, want) in cases {
            assert_eq!(extract_json(text), want, "{text:?}");
        }
    }

    #[test]
    fn format_problems() {
        let cases: Vec<(String, &str)> = vec![
            ("".into(), "the output was empty"),
            (" \n ".into(), "the output was empty"),
            ("no json here".into(), "no JSON object found"),
            ("the score is 4".into(), "no JSON object found"),
            (
                r#"{"claims": ["a", "Grass is gre"#.into(),
                "cut off (an unclosed string)",
            ),
            (
                r#"{"claims": ["a", "b""#.into(),
                "cut off (an unclosed array)",
            ),
            (r#"{"a": 1, "b": 2"#.into(), "cut off (an unclosed object)"),
            (r#"{"a": 1 /* note"#.into(), "cut off (an unclosed comment)"),
            (
                r#"{"a": 1 "b": 2}"#.into(),
                "the JSON is malformed: expected `,`",
            ),
            (
                r#"{"a": NaN}"#.into(),
                "the JSON is malformed: unexpected word",
            ),
            (r#"{"a": "\x41"}"#.into(), "unknown escape"),
            (r#"{"a": "\ud800"}"#.into(), "lone surrogate"),
            (r#"{"a": 01}"#.into(), "invalid number"),
            (
                r#"{"a": [1}]"#.into(),
                "the JSON is malformed: expected `,`",
            ),
            (
                format!("x {}", "[".repeat(300)),
                "nested more than 256 levels deep",
            ),
        ];
        for (text, want) in cases {
            let got = cands(&text).expect_err(&text);
            assert!(got.contains(want), "{text:?} → {got:?}");
        }
    }

    #[test]
    fn table() {
        let cases: Vec<(&str, Vec<Value>)> =
            vec![
            // JSONL
            (
                "{\"v\": 1}\n{\"v\": 2}\n{\"v\": 3}\n",
                vec![json!({"v": 1}), json!({"v": 2}), json!({"v": 3})],
            ),
            // two fenced blocks: both, in order
            (
                "Draft:\n```json\n{\"rating\": 2}\n```\nCorrected:\n```json\n{\"rating\": 5}\n```",
                vec![json!({"rating": 2}), json!({"rating": 5})],
            ),
            // prose braces, then the real object
            (
                "I used {} braces and {placeholders} here. Answer: {\"ok\": true}",
                vec![json!({}), json!({"ok": true})],
            ),
            // trailing commas
            (
                r#"{"a": [1, 2, 3,], "b": {"c": 1,},}"#,
                vec![json!({"a": [1, 2, 3], "b": {"c": 1}})],
            ),
            // comments
            (
                "{\"a\": 1, // the score\n /* why */ \"b\": \"x // not a comment\"}",
                vec![json!({"a": 1, "b": "x // not a comment"})],
            ),
            // unicode, raw and escaped
            (
                r#"{"é": "naïve café ✓ 🦀", "u": "\u00e9\ud83e\udd80"}"#,
                vec![json!({"é": "naïve café ✓ 🦀", "u": "é🦀"})],
            ),
            // brackets and escaped quotes inside strings
            (
                r#"Result: {"reason": "a } and a { and \"quotes\" and ]", "n": [1]} done"#,
                vec![json!({"reason": "a } and a { and \"quotes\" and ]", "n": [1]})],
            ),
            // Python literals
            (
                "{'statements': ['Paris is the capital.', 'I don't like croissants.']}",
                vec![json!({"statements": ["Paris is the capital.", "I don't like croissants."]})],
            ),
            (
                "{'ok': True, 'bad': False, 'none': None, 'n': -1.5e2}",
                vec![json!({"ok": true, "bad": false, "none": null, "n": -150.0})],
            ),
            (
                r#"{'q': 'say "hi" to l'été', 'e': 'it\'s', "t": "true"}"#,
                vec![json!({"q": "say \"hi\" to l'été", "e": "it's", "t": "true"})],
            ),
            (
                "['a' , 'b' ]",
                vec![json!(["a", "b"])],
            ),
            // bare keys
            ("{verdict: 'yes', score: 3}", vec![json!({"verdict": "yes", "score": 3})]),
            // a quote in prose does not start a string
            (
                "Here's what I'd say [it's fine]: {\"a\": 1}",
                vec![json!({"a": 1})],
            ),
            // raw newline kept as content
            ("{\"a\": \"line1\nline2\"}", vec![json!({"a": "line1\nline2"})]),
            // prose reference after the answer is another candidate
            ("{\"a\": 1}\nSee [1].", vec![json!({"a": 1}), json!([1])]),
            // a cut-off value after complete ones is not a candidate
            (
                "{\"v\": 1}\n{\"v\": 2}\n{\"v\": ",
                vec![json!({"v": 1}), json!({"v": 2})],
            ),
        ];
        for (text, want) in cases {
            assert_eq!(
                cands(text).unwrap_or_else(|e| panic!("{text:?}: {e}")),
                want,
                "{text:?}"
            );
        }
    }

    #[test]
    fn python_quotes_never_split_content() {
        // Each is either parsed faithfully or rejected, never split at an inner quote.
        let ok =
            cands("{'statements': ['Paris is the capital.', 'I don't like croissants.']}").unwrap();
        assert_eq!(ok[0]["statements"].as_array().unwrap().len(), 2);
        for ambiguous in [
            // Python would read implicit concatenation / an operator here: reject, never guess
            "['a' 'b']",
            "['x', 'y' + 'z']",
            "{'a': 'the students' books'}",
            "['I said 'no', then left']",
        ] {
            assert!(
                cands(ambiguous).is_err(),
                "{ambiguous} → {:?}",
                cands(ambiguous)
            );
        }
    }

    #[test]
    fn reasoning_blocks() {
        let cases: Vec<(&str, &str, Option<&str>)> = vec![
            ("{\"a\": 1}", "{\"a\": 1}", None),
            (
                "<think>{\"rating\": 2}</think>{\"rating\": 4}",
                "{\"rating\": 4}",
                Some("{\"rating\": 2}"),
            ),
            (
                "<think>Maybe {\"rating\": 0}? No.</think>\n{\"rating\": 4}",
                "{\"rating\": 4}",
                Some("Maybe {\"rating\": 0}? No."),
            ),
            // tag names are case-insensitive; several blocks; other names
            (
                "<THINK>a</Think>\n<thinking >b</thinking>x<Reasoning>c</REASONING>{}",
                "x{}",
                Some("a\n\nb\n\nc"),
            ),
            // unclosed leading block: all reasoning
            (
                "<think> I will answer {\"rating\": 3",
                "",
                Some("I will answer {\"rating\": 3"),
            ),
            // ... unless a closing tag of another form ends it
            ("<think>hmm</thinking>{\"a\": 1}", "{\"a\": 1}", Some("hmm")),
            // stray closing tag: the opening one was stripped by the server
            (
                "Okay, {\"rating\": 1} is wrong.\n</think>\n\n{\"rating\": 5}",
                "{\"rating\": 5}",
                Some("Okay, {\"rating\": 1} is wrong."),
            ),
            // a stray close after unbalanced brackets in the reasoning still counts
            (
                "so { maybe</think>{\"a\": 2}",
                "{\"a\": 2}",
                Some("so { maybe"),
            ),
            // tags quoted inside a JSON string are content
            (
                r#"{"s": ["<think>x</think> 4", "a </think> b"]}"#,
                r#"{"s": ["<think>x</think> 4", "a </think> b"]}"#,
                None,
            ),
            // empty reasoning is None
            ("<think>\n</think>\n{}", "{}", None),
            // a block after the answer
            (
                "{\"a\": 1}\n<think>trailing",
                "{\"a\": 1}",
                Some("trailing"),
            ),
            // not our tags
            ("<thinker>{}</thinker>", "<thinker>{}</thinker>", None),
        ];
        for (text, answer, reasoning) in cases {
            let (a, r) = split_reasoning(text);
            assert_eq!(a, answer, "{text:?}");
            assert_eq!(r.as_deref(), reasoning, "{text:?}");
        }
        // the brief's example
        let (a, r) = split_reasoning("<think>{\"rating\": 2}</think>{\"rating\": 4}");
        assert_eq!(cands(&a).unwrap(), vec![json!({"rating": 4})]);
        assert_eq!(r.as_deref(), Some("{\"rating\": 2}"));
        assert_eq!(
            extract_json("<think>… {\"rating\": 0} …</think>\n{\"rating\": 4}"),
            Some(json!({"rating": 4}))
        );
        // unclosed leading think: no answer
        let (a, _) = split_reasoning("<think> still thinking {\"rating\": 1}");
        assert_eq!(cands(&a).unwrap_err(), "the output was empty");
    }

    #[test]
    fn depth_is_bounded_before_parsing() {
        // 30 000 open brackets: rejected by the depth bound, never a stack overflow
        let deep = format!("Let me think [{}", "[".repeat(30_000));
        assert!(cands(&deep).unwrap_err().contains("256 levels"));
        assert_eq!(extract_json(&deep), None);
        let deep_obj = "{\"a\":".repeat(100_000);
        assert!(cands(&deep_obj).unwrap_err().contains("256 levels"));
        assert_eq!(extract_json(&deep_obj), None);
        // closed too, and even when an earlier candidate exists
        let closed = format!("{{}} {}{}", "[".repeat(300), "]".repeat(300));
        assert!(cands(&closed).unwrap_err().contains("256 levels"));
        // brackets inside strings do not count
        let in_string = format!("{{\"a\": \"{}\"}}", "[".repeat(1000));
        assert_eq!(cands(&in_string).unwrap().len(), 1);
        // exactly MAX_DEPTH is fine, and above serde_json's own limit of 128 too
        for depth in [129, MAX_DEPTH] {
            let ok = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
            let v = cands(&ok).unwrap();
            assert_eq!(v.len(), 1);
            let mut inner = &v[0];
            let mut levels = 0;
            while let Value::Array(items) = inner {
                levels += 1;
                inner = &items[0];
            }
            assert_eq!(levels, depth);
        }
        let too_deep = format!(
            "{}1{}",
            "[".repeat(MAX_DEPTH + 1),
            "]".repeat(MAX_DEPTH + 1)
        );
        assert!(cands(&too_deep).is_err());
    }

    #[test]
    fn large_inputs_finish() {
        // Pseudo-random bracket soup, 1 MB each; must return (linear scan, one parse per
        // span), whatever it returns.
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for alphabet in [
            &b"[]{}"[..],
            &b"[]{}\"',: "[..],
            &b"{}[]\"'\\:,a1 /*<>"[..],
            &b"[']"[..],
        ] {
            let text: String = (0..1 << 20)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize] as char)
                .collect();
            let _ = cands(&text);
            let _ = split_reasoning(&text);
            let _ = extract_json(&text);
        }
        // many small candidates, one long string, many quotes, many tags
        let _ = cands(&"{} [] ".repeat(170_000));
        let _ = cands(&format!("{{\"a\": \"{}\"}}", "x".repeat(1 << 20)));
        let _ = cands(&format!("['{}']", "' ".repeat(500_000)));
        let _ = split_reasoning(&"<think>".repeat(100_000));
        let _ = split_reasoning(&"<think></thinking>".repeat(50_000));
        let _ = split_reasoning(&"</think>".repeat(100_000));
    }

    #[test]
    fn never_panics_on_garbage() {
        for s in [
            "{",
            "[",
            "{{{{",
            "```",
            "```json",
            "{\"a\":",
            "\u{0}{\u{ffff}",
            "{\"\\ud800\": 1}",
            "[\"\\u12",
            "['\\",
            "[\"\\",
            "[/",
            "[/*",
            "{'",
            "{'a'",
            "{a",
            "[-",
            "[1e999]",
            "[tru]",
            "<",
            "</",
            "<think",
            "</think",
            "[é'",
            "['é'é']",
        ] {
            let _ = split_reasoning(s);
            let _ = extract_json(s);
            let _ = cands(s);
        }
    }

    #[test]
    fn serialized_values_round_trip() {
        for v in [
            json!({"a": [1, -2, 3.5, 1e300, u64::MAX, i64::MIN], "b": null, "c": true}),
            json!({"s": "\u{0}\u{1f}\"\\/\n\t'é🦀\u{2028}", "": {"": []}}),
            json!([[[[]]], {}, "}", "]"]),
        ] {
            assert_eq!(cands(&v.to_string()).unwrap(), vec![v.clone()]);
            assert_eq!(
                cands(&serde_json::to_string_pretty(&v).unwrap()).unwrap(),
                vec![v]
            );
        }
    }

    #[test]
    fn lone_surrogates_are_replaced_inside_strings_only() {
        let fix = |s: &str| {
            let (t, n) = repair_lone_surrogates_str(s);
            (t.into_owned(), n)
        };
        // a lone high half, a lone low half, one at the very end of a string
        assert_eq!(
            fix(r#"{"a":"x\ud83d y"}"#),
            (r#"{"a":"x\uFFFD y"}"#.into(), 1)
        );
        assert_eq!(fix(r#"{"a":"\uDE00"}"#), (r#"{"a":"\uFFFD"}"#.into(), 1));
        assert_eq!(fix(r#"["\uD83D"]"#), (r#"["\uFFFD"]"#.into(), 1));
        // high then high: the first is lone, the second pairs
        assert_eq!(
            fix(r#"["\ud83d\ud83d\ude00"]"#),
            (r#"["\uFFFD\ud83d\ude00"]"#.into(), 1)
        );
        // valid pairs, escaped backslashes and other escapes are left alone
        for same in [
            r#"{"a":"\ud83d\ude00"}"#,
            r#"{"a":"\\ud83d"}"#,
            r#"{"a":"\\\\ud83d"}"#,
            r#"{"a":"\"\ud7ff\ue000\n"}"#,
            r#"{"a":"\u00e9"} \ud83d outside"#,
            "{\"a\":\"plain\"}",
        ] {
            assert_eq!(fix(same), (same.to_string(), 0), "{same}");
        }
        // an odd run of backslashes: the last one starts an escape
        assert_eq!(fix(r#"["\\\ud83d"]"#), (r#"["\\\uFFFD"]"#.into(), 1));
        // the result parses, the pair decodes, the lone half is U+FFFD
        let (t, n) = fix(r#"{"r":"a\ud83db\udc00\ud83d\ude00"}"#);
        assert_eq!(n, 2);
        let v: Value = serde_json::from_str(&t).unwrap();
        assert_eq!(v["r"], "a\u{FFFD}b\u{FFFD}\u{1F600}");
        // unfinished input never panics
        for s in [
            r#""\ud83"#,
            r#""\ud83d\u"#,
            r#""\ud83d\udc"#,
            "\"\\",
            "\"\\u",
        ] {
            let _ = fix(s);
        }
    }
}
