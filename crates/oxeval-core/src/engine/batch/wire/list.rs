//! The providers' batch lists, newest first (what an intent is looked up in after a create
//! whose answer was lost): OpenAI and Azure `GET /batches?limit=100&after=…` (the
//! `metadata` oxeval sent), Anthropic `GET /messages/batches?limit=100&after_id=…` (no
//! batch-level metadata: creation time and request counts), Gemini `GET
//! /batches?pageSize=100&pageToken=…` (the `displayName` oxeval sent).

use super::{
    parse_json, path_id, send, AnthropicBatch, BatchError, GoogleBatch, ListPage, Listed,
    OpenAiBatch, MAX_STATUS_BYTES,
};
use serde_json::Value;
use std::time::Duration;

/// How many batches one list page asks for.
const PAGE: u32 = 100;

/// `url` with `query` appended (after its own query, if any).
fn with_query(url: String, query: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{query}")
}

/// Unix ms of an RFC 3339 time (`2024-10-02T15:01:23.045Z`, `…+05:30`), or `None`.
pub(crate) fn rfc3339_ms(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut rest = &s[19..];
    let mut ms = 0i64;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits: String = frac.chars().take_while(char::is_ascii_digit).collect();
        ms = format!("{:0<3}", &digits[..digits.len().min(3)])
            .parse()
            .ok()?;
        rest = &frac[digits.len()..];
    }
    let offset_min = match rest {
        "Z" | "z" => 0,
        o if o.len() == 6 && (o.starts_with('+') || o.starts_with('-')) => {
            let n = s.len();
            let m = num(n - 5..n - 3)? * 60 + num(n - 2..n)?;
            if o.starts_with('-') {
                -m
            } else {
                m
            }
        }
        _ => return None,
    };
    // days from 1970-01-01 (Howard Hinnant's days_from_civil)
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + mi * 60 + sec - offset_min * 60;
    u64::try_from(secs * 1000 + ms).ok()
}

fn openai_page(v: &Value) -> ListPage {
    let data = v.get("data").and_then(Value::as_array);
    let batches: Vec<Listed> = data
        .into_iter()
        .flatten()
        .filter_map(|b| {
            Some(Listed {
                id: b.get("id")?.as_str()?.to_string(),
                tag: b
                    .pointer("/metadata/oxeval")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                created_ms: b
                    .get("created_at")
                    .and_then(Value::as_u64)
                    .map(|s| s * 1000),
                requests: b.pointer("/request_counts/total").and_then(Value::as_u64),
            })
        })
        .collect();
    let more = v.get("has_more").and_then(Value::as_bool) == Some(true);
    ListPage {
        next: if more {
            batches.last().map(|b| b.id.clone())
        } else {
            None
        },
        batches,
    }
}

fn anthropic_page(v: &Value) -> ListPage {
    let data = v.get("data").and_then(Value::as_array);
    let batches: Vec<Listed> = data
        .into_iter()
        .flatten()
        .filter_map(|b| {
            let counts = b.get("request_counts");
            let requests = counts.and_then(Value::as_object).map(|c| {
                ["processing", "succeeded", "errored", "canceled", "expired"]
                    .iter()
                    .filter_map(|k| c.get(*k).and_then(Value::as_u64))
                    .sum()
            });
            Some(Listed {
                id: b.get("id")?.as_str()?.to_string(),
                tag: None,
                created_ms: b
                    .get("created_at")
                    .and_then(Value::as_str)
                    .and_then(rfc3339_ms),
                requests,
            })
        })
        .collect();
    let more = v.get("has_more").and_then(Value::as_bool) == Some(true);
    ListPage {
        next: if more {
            v.get("last_id")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| batches.last().map(|b| b.id.clone()))
        } else {
            None
        },
        batches,
    }
}

fn google_page(v: &Value) -> ListPage {
    let list = v
        .get("operations")
        .or_else(|| v.get("batches"))
        .and_then(Value::as_array);
    let batches = list
        .into_iter()
        .flatten()
        .filter_map(|op| {
            let meta = op.get("metadata").unwrap_or(op);
            let count = meta.pointer("/batchStats/requestCount");
            Some(Listed {
                id: op
                    .get("name")
                    .or_else(|| meta.get("name"))?
                    .as_str()?
                    .to_string(),
                tag: meta
                    .get("displayName")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                created_ms: meta
                    .get("createTime")
                    .and_then(Value::as_str)
                    .and_then(rfc3339_ms),
                requests: count.and_then(|c| {
                    c.as_u64()
                        .or_else(|| c.as_str().and_then(|s| s.parse().ok()))
                }),
            })
        })
        .collect();
    ListPage {
        batches,
        next: v
            .get("nextPageToken")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_owned),
    }
}

impl OpenAiBatch {
    pub(super) async fn list_page(
        &self,
        after: Option<&str>,
        timeout: Duration,
    ) -> Result<ListPage, BatchError> {
        let mut url = with_query(self.url("/batches"), &format!("limit={PAGE}"));
        if let Some(a) = after {
            url = with_query(url, &format!("after={}", path_id(a)));
        }
        let what = "listing the batches";
        let body = send(
            self.request(reqwest::Method::GET, &url),
            what,
            timeout,
            MAX_STATUS_BYTES,
            self.http().redactor(),
        )
        .await?;
        Ok(openai_page(&parse_json(what, &body)?))
    }
}

impl AnthropicBatch {
    pub(super) async fn list_page(
        &self,
        after: Option<&str>,
        timeout: Duration,
    ) -> Result<ListPage, BatchError> {
        let mut url = with_query(self.url(""), &format!("limit={PAGE}"));
        if let Some(a) = after {
            url = with_query(url, &format!("after_id={}", path_id(a)));
        }
        let what = "listing the message batches";
        let body = send(
            self.request(reqwest::Method::GET, &url),
            what,
            timeout,
            MAX_STATUS_BYTES,
            self.http().redactor(),
        )
        .await?;
        Ok(anthropic_page(&parse_json(what, &body)?))
    }
}

impl GoogleBatch {
    pub(super) async fn list_page(
        &self,
        token: Option<&str>,
        timeout: Duration,
    ) -> Result<ListPage, BatchError> {
        let mut url = with_query(self.name_url("batches", ""), &format!("pageSize={PAGE}"));
        if let Some(t) = token {
            url = with_query(url, &format!("pageToken={}", path_id(t)));
        }
        let what = "listing the batches";
        let body = send(
            self.request(reqwest::Method::GET, &url),
            what,
            timeout,
            MAX_STATUS_BYTES,
            self.http().redactor(),
        )
        .await?;
        Ok(google_page(&parse_json(what, &body)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rfc3339_times() {
        assert_eq!(rfc3339_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            rfc3339_ms("2024-10-02T15:01:23.045Z"),
            Some(1_727_881_283_045)
        );
        assert_eq!(
            rfc3339_ms("2024-10-02T15:01:23.045123456Z"),
            Some(1_727_881_283_045)
        );
        assert_eq!(
            rfc3339_ms("2024-10-02T20:31:23+05:30"),
            Some(1_727_881_283_000)
        );
        assert_eq!(rfc3339_ms("yesterday"), None);
    }

    #[test]
    fn pages() {
        let p = openai_page(&json!({"data": [
            {"id": "b2", "created_at": 20, "metadata": {"oxeval": "t2"}, "request_counts": {"total": 3}},
            {"id": "b1", "created_at": 10, "metadata": null}
        ], "has_more": true}));
        assert_eq!(p.batches[0].tag.as_deref(), Some("t2"));
        assert_eq!(p.batches[0].created_ms, Some(20_000));
        assert_eq!(p.batches[1].tag, None);
        assert_eq!(p.next.as_deref(), Some("b1"));
        let a = anthropic_page(
            &json!({"data": [{"id": "m1", "created_at": "1970-01-01T00:00:01Z",
            "request_counts": {"processing": 2, "succeeded": 1, "errored": 0, "canceled": 0, "expired": 0}}],
            "has_more": false}),
        );
        assert_eq!(
            (a.batches[0].requests, a.batches[0].created_ms, a.next),
            (Some(3), Some(1000), None)
        );
        let g = google_page(
            &json!({"operations": [{"name": "batches/x", "metadata": {"displayName": "t",
            "createTime": "1970-01-01T00:00:02Z", "batchStats": {"requestCount": "4"}}}], "nextPageToken": "p2"}),
        );
        assert_eq!(g.batches[0].tag.as_deref(), Some("t"));
        assert_eq!(g.batches[0].requests, Some(4));
        assert_eq!(g.next.as_deref(), Some("p2"));
    }
}
