//! Keeping configured secrets out of everything oxeval shows: error messages, raw judge
//! output, execution records.
//!
//! A [`Redactor`] knows the secrets of one model configuration (API key, custom header
//! values, the base URL's userinfo) and replaces every occurrence of them with
//! [`REDACTED`]. Also here: small URL helpers that take credentials out of URLs before
//! they are sent or shown.

use crate::model::ModelConfig;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Secrets shorter than this many characters are ignored: replacing every `1` or `abc` in
/// a judge's text would shred ordinary output, and such values are not real credentials.
pub const MIN_SECRET_CHARS: usize = 4;

/// Replaces configured secrets in text and JSON values.
///
/// Secrets shorter than [`MIN_SECRET_CHARS`] characters are ignored (see there). Each
/// secret is also matched in its JSON-escaped form (a key containing `"` or `\` appears
/// escaped inside a JSON body). Longer secrets are replaced first, so a secret that contains
/// another one is removed whole. Scrubbing allocates only when a secret actually occurs.
///
/// `Debug` shows how many secrets there are, never their values.
#[derive(Clone, Default)]
pub struct Redactor {
    /// Longest first, without duplicates, each at least [`MIN_SECRET_CHARS`] long.
    secrets: Vec<String>,
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Redactor({} secrets)", self.secrets.len())
    }
}

impl Redactor {
    /// A redactor for the given secret values.
    pub fn new<I, S>(secrets: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut r = Redactor::default();
        for s in secrets {
            r.push(s.as_ref());
        }
        r.sort();
        r
    }

    /// Every secret of a model configuration: the API key (when resolved), every custom
    /// header value (and the credential part of `Scheme credential` values such as
    /// `Bearer …`), and the base URL's userinfo (user and password, raw and
    /// percent-decoded, and the `Basic` header value they make).
    pub fn from_model(model: &ModelConfig) -> Self {
        let mut r = Redactor::default();
        if let Ok(Some(key)) = &model.api_key {
            r.push(key.expose());
        }
        for (_, value) in &model.headers {
            r.push(value);
            if let Some((_scheme, credential)) = value.trim().split_once(char::is_whitespace) {
                r.push(credential.trim());
            }
        }
        if let Some(info) = url_userinfo(&model.base_url) {
            r.push(info.user);
            let user = percent_decode(info.user);
            r.push(&user);
            let password = info.password.map(percent_decode);
            if let Some(raw) = info.password {
                r.push(raw);
            }
            if let Some(p) = &password {
                r.push(p);
            }
            r.push(&basic_credentials(&user, password.as_deref()));
        }
        // a key in the base URL's query (`?api-key=…`, `?key=…`, `?code=…`) is a secret,
        // and so is every other query value: oxeval cannot tell which one is
        for value in url_query_values(&model.base_url) {
            r.push(&value);
        }
        r.sort();
        r
    }

    /// The same redactor with one more secret.
    pub fn with_secret(mut self, secret: &str) -> Self {
        self.push(secret);
        self.sort();
        self
    }

    /// No secret to look for.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// `s` with every secret replaced by [`REDACTED`]; borrowed (no allocation) when no
    /// secret occurs in it.
    pub fn scrub_str<'a>(&self, s: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(s);
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = Cow::Owned(out.replace(secret.as_str(), REDACTED));
            }
        }
        out
    }

    /// Scrub `s` in place (untouched when no secret occurs).
    pub fn scrub_string(&self, s: &mut String) {
        if let Cow::Owned(clean) = self.scrub_str(s) {
            *s = clean;
        }
    }

    /// Scrub every string in `v`, object keys included.
    pub fn scrub_value(&self, v: &mut Value) {
        if self.is_empty() {
            return;
        }
        match v {
            Value::String(s) => self.scrub_string(s),
            Value::Array(items) => items.iter_mut().for_each(|i| self.scrub_value(i)),
            Value::Object(map) => {
                if map.keys().any(|k| self.occurs_in(k)) {
                    let old = std::mem::take(map);
                    for (k, v) in old {
                        map.insert(self.scrub_str(&k).into_owned(), v);
                    }
                }
                map.values_mut().for_each(|i| self.scrub_value(i));
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// Some secret occurs in `s`.
    pub fn occurs_in(&self, s: &str) -> bool {
        self.secrets
            .iter()
            .any(|secret| s.contains(secret.as_str()))
    }

    /// Add a secret and its JSON-escaped form (unsorted; call `sort` after).
    fn push(&mut self, secret: &str) {
        if secret.chars().count() < MIN_SECRET_CHARS {
            return;
        }
        self.secrets.push(secret.to_string());
        if let Ok(quoted) = serde_json::to_string(secret) {
            let escaped = &quoted[1..quoted.len() - 1];
            if escaped != secret {
                self.secrets.push(escaped.to_string());
            }
        }
    }

    fn sort(&mut self) {
        self.secrets
            .sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        self.secrets.dedup();
    }
}

/// The userinfo of a URL (`scheme://user:password@host/…`), raw (still percent-encoded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UrlUserinfo<'a> {
    pub user: &'a str,
    pub password: Option<&'a str>,
}

/// Byte range of the userinfo including its `@`, if the URL has one.
fn userinfo_range(url: &str) -> Option<(usize, usize)> {
    let start = url.find("://")? + 3;
    let rest = &url[start..];
    let authority_len = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let at = rest[..authority_len].rfind('@')?;
    Some((start, start + at + 1))
}

/// The userinfo of `url`, if it has one.
pub fn url_userinfo(url: &str) -> Option<UrlUserinfo<'_>> {
    let (start, end) = userinfo_range(url)?;
    let info = &url[start..end - 1];
    Some(match info.split_once(':') {
        Some((user, password)) => UrlUserinfo {
            user,
            password: Some(password),
        },
        None => UrlUserinfo {
            user: info,
            password: None,
        },
    })
}

/// `url` without its userinfo (`http://u:p@host/v1` → `http://host/v1`); borrowed when it
/// has none.
pub fn strip_userinfo(url: &str) -> Cow<'_, str> {
    match userinfo_range(url) {
        Some((start, end)) => Cow::Owned(format!("{}{}", &url[..start], &url[end..])),
        None => Cow::Borrowed(url),
    }
}

/// `url` as it may be shown: without userinfo, query and fragment (either may carry
/// credentials).
pub fn display_url(url: &str) -> String {
    let url = strip_userinfo(url);
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    let end = url[after_scheme..]
        .find(['?', '#'])
        .map_or(url.len(), |i| after_scheme + i);
    url[..end].to_string()
}

/// `url` split at its query: the part before `?` (or `#`), and the query without its `?`
/// (`None` without one, or when it is empty). A fragment is never part of either.
pub fn split_query(url: &str) -> (&str, Option<&str>) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    let (head, tail) = match url[after_scheme..].find(['?', '#']) {
        Some(i) => url.split_at(after_scheme + i),
        None => (url, ""),
    };
    let query = tail
        .strip_prefix('?')
        .map(|q| q.split('#').next().unwrap_or(""))
        .filter(|q| !q.is_empty());
    (head, query)
}

/// A base URL as oxeval keeps it: no trailing `/` on its path, its query (if any) kept
/// after it (`https://h/v1/?k=v` → `https://h/v1?k=v`), no fragment.
pub fn normalize_base_url(url: &str) -> String {
    let (head, query) = split_query(url);
    let head = head.trim_end_matches('/');
    match query {
        Some(q) => format!("{head}?{q}"),
        None => head.to_string(),
    }
}

/// The request URL of `suffix` under `base`: `suffix` appended to the base's path, the
/// base's query kept at the end (`https://h/v1?k=v` + `/chat/completions` →
/// `https://h/v1/chat/completions?k=v`). A `suffix` with a query of its own
/// (`…?api-version=x`) keeps it first, then `&` and the base's query.
pub fn endpoint_url(base: &str, suffix: &str) -> String {
    let (head, query) = split_query(base);
    let head = head.trim_end_matches('/');
    match query {
        None => format!("{head}{suffix}"),
        Some(q) if suffix.contains('?') => format!("{head}{suffix}&{q}"),
        Some(q) => format!("{head}{suffix}?{q}"),
    }
}

/// Every value of `url`'s query (`?api-key=SECRET&x=1` → `SECRET`, `1`; a bare word
/// `?TOKEN` is its own value), raw and percent-decoded (`+` as a space too): each may be a
/// credential.
pub fn url_query_values(url: &str) -> Vec<String> {
    let Some(query) = split_query(url).1 else {
        return Vec::new();
    };
    let mut values = Vec::new();
    for pair in query.split('&') {
        let value = pair.split_once('=').map_or(pair, |(_, v)| v);
        if value.is_empty() {
            continue;
        }
        values.push(value.to_string());
        let decoded = percent_decode(value);
        if decoded != value {
            values.push(decoded);
        }
        if value.contains('+') {
            values.push(percent_decode(&value.replace('+', " ")));
        }
    }
    values
}

/// Decode `%XX` escapes (invalid escapes are kept as they are; invalid UTF-8 is replaced).
pub fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The value of an `Authorization: Basic` header for `user` and `password` (decoded),
/// as HTTP clients build it: base64 of `user:password` (`user:` without a password).
pub fn basic_credentials(user: &str, password: Option<&str>) -> String {
    let plain = format!("{user}:{}", password.unwrap_or(""));
    base64(plain.as_bytes())
}

/// Standard base64 with padding.
fn base64(input: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key() -> String {
        ["test", "key", "123456"].join("-")
    }

    #[test]
    fn scrubs_every_occurrence_and_borrows_when_clean() {
        let r = Redactor::new([key()]);
        let text = format!("bad key {} (again: {})", key(), key());
        assert_eq!(r.scrub_str(&text), "bad key [redacted] (again: [redacted])");
        assert!(matches!(r.scrub_str("nothing here"), Cow::Borrowed(_)));
        let mut s = format!("x{}y", key());
        r.scrub_string(&mut s);
        assert_eq!(s, "x[redacted]y");
        let mut clean = String::from("clean");
        let ptr = clean.as_ptr();
        r.scrub_string(&mut clean);
        assert_eq!(clean.as_ptr(), ptr, "untouched when no secret occurs");
    }

    #[test]
    fn short_secrets_are_ignored() {
        let r = Redactor::new(["1", "abc", ""]);
        assert!(r.is_empty());
        assert_eq!(r.scrub_str("abc 1"), "abc 1");
        // four characters (not bytes) is the threshold
        assert!(!Redactor::new(["äöüß"]).is_empty());
        assert!(Redactor::new(["äöü"]).is_empty());
    }

    #[test]
    fn longest_first() {
        let long = key();
        let short = long[..9].to_string();
        let r = Redactor::new([short.clone(), long.clone()]);
        assert_eq!(
            r.scrub_str(&format!("{long} {short}")),
            "[redacted] [redacted]"
        );
    }

    #[test]
    fn json_escaped_form() {
        let secret = format!("{}\\\"q", key());
        let r = Redactor::new([secret.as_str()]);
        let body = json!({"error": {"message": format!("bad key {secret}")}}).to_string();
        assert!(!body.contains(&secret), "the body holds the escaped form");
        let clean = r.scrub_str(&body);
        assert!(clean.contains("bad key [redacted]"), "{clean}");
        assert!(!clean.contains(&key()));
    }

    #[test]
    fn values_and_keys() {
        let r = Redactor::new([key()]);
        let mut v = json!({
            "a": [format!("x {}", key()), 1, null, {"b": key()}],
            key(): "value",
            "n": 2
        });
        r.scrub_value(&mut v);
        assert_eq!(
            v,
            json!({"a": ["x [redacted]", 1, null, {"b": "[redacted]"}], "[redacted]": "value", "n": 2})
        );
        // key order is kept when a key is renamed
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["a", "[redacted]", "n"]);
    }

    #[test]
    fn from_model_collects_every_secret() {
        let header_token = ["hdr", "token", "998877"].join("-");
        let password = ["p@ss", "word", "42"].join("/");
        let encoded_password = password.replace('@', "%40").replace('/', "%2F");
        let m = ModelConfig::resolve(
            &json!({
                "id": "custom/m",
                "url": format!("http://someone:{encoded_password}@127.0.0.1:9/v1"),
                "apiKey": key(),
                "headers": {"authorization": format!("Bearer {header_token}"), "x-a": "1"}
            }),
            &|_| None,
        )
        .unwrap();
        let r = Redactor::from_model(&m);
        for secret in [
            key(),
            header_token.clone(),
            format!("Bearer {header_token}"),
            password.clone(),
            encoded_password.clone(),
            "someone".to_string(),
            basic_credentials("someone", Some(&password)),
        ] {
            assert_eq!(
                r.scrub_str(&format!("<{secret}>")),
                "<[redacted]>",
                "{secret}"
            );
        }
        assert_eq!(
            r.scrub_str("x-a: 1"),
            "x-a: 1",
            "short header values are kept"
        );
        let shown = format!("{r:?}");
        assert!(shown.starts_with("Redactor(") && !shown.contains(&key()));
        assert!(Redactor::from_model(
            &ModelConfig::resolve(&json!("ollama/llama3.2"), &|_| None).unwrap()
        )
        .is_empty());
    }

    #[test]
    fn url_helpers() {
        assert_eq!(
            url_userinfo("http://u:p%40ss@h:1/v1"),
            Some(UrlUserinfo {
                user: "u",
                password: Some("p%40ss")
            })
        );
        assert_eq!(
            url_userinfo("https://tok@h/v1"),
            Some(UrlUserinfo {
                user: "tok",
                password: None
            })
        );
        assert_eq!(
            url_userinfo("http://h/v1?x=a@b"),
            None,
            "@ after the authority"
        );
        assert_eq!(url_userinfo("not a url"), None);
        assert_eq!(strip_userinfo("http://u:p@h:1/v1"), "http://h:1/v1");
        assert!(matches!(strip_userinfo("http://h/v1"), Cow::Borrowed(_)));
        assert_eq!(
            display_url("https://u:p@h/v1/x?key=s3cr3t#frag"),
            "https://h/v1/x"
        );
        assert_eq!(display_url("http://h:8/v1"), "http://h:8/v1");
        assert_eq!(percent_decode("a%40b%2Fc%zz%4"), "a@b/c%zz%4");
        assert_eq!(
            basic_credentials("Aladdin", Some("open sesame")),
            "QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
        );
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
    }

    #[test]
    fn base_url_queries_stay_queries_and_are_secrets() {
        assert_eq!(
            split_query("https://h/v1?k=v#f"),
            ("https://h/v1", Some("k=v"))
        );
        assert_eq!(split_query("https://h/v1?"), ("https://h/v1", None));
        assert_eq!(split_query("https://h/v1#x"), ("https://h/v1", None));
        assert_eq!(normalize_base_url("https://h/v1/?k=v"), "https://h/v1?k=v");
        assert_eq!(normalize_base_url("https://h/v1/"), "https://h/v1");
        assert_eq!(
            endpoint_url("https://h/v1?api-key=S1", "/chat/completions"),
            "https://h/v1/chat/completions?api-key=S1"
        );
        assert_eq!(
            endpoint_url(
                "https://h/openai?k=S1",
                "/deployments/d/chat/completions?api-version=2"
            ),
            "https://h/openai/deployments/d/chat/completions?api-version=2&k=S1"
        );
        assert_eq!(endpoint_url("https://h/v1", "/x"), "https://h/v1/x");
        assert_eq!(
            url_query_values("https://h/v1?api-key=a%2Fb+c&flag&x=plainvalue"),
            vec!["a%2Fb+c", "a/b+c", "a/b c", "flag", "plainvalue"],
            "a bare query word may be a token too"
        );
        let secret = ["query", "key", "777"].join("-");
        let m = ModelConfig::resolve(
            &json!({"id": "custom/j", "url": format!("https://h/v1/?api-key={secret}&v=1")}),
            &|_| None,
        )
        .unwrap();
        assert_eq!(m.base_url, format!("https://h/v1?api-key={secret}&v=1"));
        let r = Redactor::from_model(&m);
        assert_eq!(
            r.scrub_str(&format!("error sending request for url (https://h/v1/chat/completions?api-key={secret}&v=1)")),
            "error sending request for url (https://h/v1/chat/completions?api-key=[redacted]&v=1)"
        );
        assert_eq!(display_url(&m.base_url), "https://h/v1");
    }
}
