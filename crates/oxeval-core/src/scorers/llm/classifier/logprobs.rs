//! The distribution over a question's labels from the provider's token log-probabilities:
//! the alternatives at the first token of the judge's `"answer"` value, each counted for the
//! one label it begins (exp(logprob)), then normalized over the labels. `Err` says why the
//! tokens cannot give one (the value not found, a token beginning two labels, no mass on the
//! answered label); the scorer then uses the judge's stated probabilities and says so.

use crate::provider::TokenLogprob;

/// Where the `"answer"` value starts in `text` (the byte after its opening quote).
fn value_start(text: &str) -> Option<usize> {
    let key = text.find("\"answer\"")? + "\"answer\"".len();
    let rest = &text[key..];
    let colon = rest.find(':')?;
    if !rest[..colon].trim().is_empty() {
        return None;
    }
    let after = &rest[colon + 1..];
    let quote = after.len() - after.trim_start().len();
    after[quote..]
        .starts_with('"')
        .then_some(key + colon + 1 + quote + 1)
}

/// The probability of each label (in `labels`' order), from the alternatives at the first
/// token of the answer `answer` in the judge's reply `tokens`.
pub fn distribution(
    tokens: &[TokenLogprob],
    answer: &str,
    labels: &[String],
) -> Result<Vec<f64>, String> {
    let text: String = tokens.iter().map(|t| t.token.as_str()).collect();
    let v = value_start(&text).ok_or("no \"answer\" value in the tokens")?;
    if !text[v..].starts_with(answer) {
        return Err("the tokens do not spell the answer".into());
    }
    let mut at = 0;
    let (i, lead) = tokens
        .iter()
        .enumerate()
        .find_map(|(i, t)| {
            let start = at;
            at += t.token.len();
            (start <= v && v < at).then(|| (i, text[start..v].to_string()))
        })
        .ok_or("no token at the answer")?;
    let chosen = &tokens[i];
    let mut alternatives = chosen.top.clone();
    if !alternatives.iter().any(|(t, _)| *t == chosen.token) {
        alternatives.push((chosen.token.clone(), chosen.logprob));
    }
    let mut mass = vec![0.0; labels.len()];
    for (token, lp) in &alternatives {
        let Some(rest) = token.strip_prefix(lead.as_str()) else {
            continue;
        };
        // a closing quote inside the token ends the value: the label is exactly the piece
        let (piece, closed) = match rest.find('"') {
            Some(q) => (&rest[..q], true),
            None => (rest, false),
        };
        if piece.is_empty() {
            continue;
        }
        let begun: Vec<usize> = labels
            .iter()
            .enumerate()
            .filter(|(_, l)| {
                if closed {
                    *l == piece
                } else {
                    l.starts_with(piece)
                }
            })
            .map(|(j, _)| j)
            .collect();
        match begun.as_slice() {
            [] => {}
            [j] => mass[*j] += lp.exp(),
            _ => return Err(format!("the token {piece:?} begins {} labels", begun.len())),
        }
    }
    let total: f64 = mass.iter().sum();
    let answered = labels.iter().position(|l| l == answer);
    if !(total > 0.0 && total.is_finite()) || answered.is_none_or(|j| mass[j] <= 0.0) {
        return Err("no probability on the answered label among the alternatives".into());
    }
    Ok(mass.iter().map(|m| m / total).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(token: &str, top: &[(&str, f64)]) -> TokenLogprob {
        TokenLogprob {
            token: token.into(),
            logprob: top
                .iter()
                .find(|(t, _)| *t == token)
                .map_or(-0.1, |(_, l)| *l),
            top: top.iter().map(|(t, l)| ((*t).into(), *l)).collect(),
        }
    }

    fn labels(l: &[&str]) -> Vec<String> {
        l.iter().map(|s| (*s).into()).collect()
    }

    #[test]
    fn first_token_alternatives_become_the_distribution() {
        // {"answer":"angry",...}: the value's first token "ang" with "cal" as an alternative
        let t = vec![
            tok("{\"answer\":\"", &[]),
            tok(
                "ang",
                &[
                    ("ang", 0.7f64.ln()),
                    ("cal", 0.2f64.ln()),
                    ("xyz", 0.1f64.ln()),
                ],
            ),
            tok("ry\",\"probabilities\":[]}", &[]),
        ];
        let d = distribution(&t, "angry", &labels(&["calm", "angry", "mixed"])).unwrap();
        assert!(
            (d[0] - 2.0 / 9.0).abs() < 1e-12 && (d[1] - 7.0 / 9.0).abs() < 1e-12 && d[2] == 0.0,
            "{d:?}"
        );
        // the opening quote inside the token: stripped from every alternative
        let t = vec![
            tok("{\"answer\": ", &[]),
            tok(
                "\"true",
                &[
                    ("\"true", 0.6f64.ln()),
                    ("\"false", 0.3f64.ln()),
                    ("\"", 0.1f64.ln()),
                ],
            ),
            tok("\"}", &[]),
        ];
        let d = distribution(&t, "true", &labels(&["true", "false"])).unwrap();
        assert!((d[0] - 2.0 / 3.0).abs() < 1e-12, "{d:?}");
        // a whole value in one token, closed: exact labels only
        let t = vec![
            tok("{\"answer\":\"", &[]),
            tok("1\"", &[("1\"", 0.5f64.ln()), ("10\"", 0.5f64.ln())]),
            tok("}", &[]),
        ];
        let d = distribution(&t, "1", &labels(&["0", "1", "2"])).unwrap();
        assert_eq!(d, vec![0.0, 1.0, 0.0]);
    }

    #[test]
    fn tokens_that_cannot_give_a_distribution_say_why() {
        let l = labels(&["calm", "calmer"]);
        let t = vec![
            tok("{\"answer\":\"", &[]),
            tok("cal", &[("cal", -0.1)]),
            tok("m\"}", &[]),
        ];
        assert!(distribution(&t, "calm", &l)
            .unwrap_err()
            .contains("begins 2 labels"));
        let t = vec![tok("{\"other\":\"calm\"}", &[])];
        assert!(distribution(&t, "calm", &l)
            .unwrap_err()
            .contains("no \"answer\""));
        // an answer that is no label has no mass
        let t = vec![
            tok("{\"answer\":\"", &[]),
            tok("ang", &[("xyz", -0.1)]),
            tok("ry\"}", &[]),
        ];
        assert!(distribution(&t, "ang", &labels(&["calm", "angry"]))
            .unwrap_err()
            .contains("no probability"));
        let t = vec![tok("{\"answer\":\"calm\"}", &[])];
        assert!(distribution(&t, "angry", &labels(&["calm", "angry"]))
            .unwrap_err()
            .contains("do not spell"));
    }
}
