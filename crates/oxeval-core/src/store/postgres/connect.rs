//! Connecting to PostgreSQL: the URL parsed by the `postgres` crate, a bounded connect
//! (5 s unless the URL sets `connect_timeout`), TLS by `sslmode` (rustls with the Mozilla
//! roots for `prefer` and `require`; `disable` plain), statement and lock timeouts. Every
//! message names the store as the URL without its userinfo and query, and never carries the
//! password.

use crate::store::{StoreError, StoreResult};
use postgres::config::SslMode;
use postgres::{Client, Config};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// How long connecting may take unless the URL says otherwise.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A statement (or a wait for a lock) longer than this fails instead of hanging the run.
pub const STATEMENT_TIMEOUT: &str = "60s";

/// The store as messages show it: no userinfo, no query (either may carry the password).
pub fn describe(url: &str) -> String {
    crate::redact::display_url(url)
}

/// `text` with the password (if any) masked: for messages built from a driver's error.
pub fn mask(text: &str, password: Option<&str>) -> String {
    match password.filter(|p| !p.is_empty()) {
        Some(p) => text.replace(p, "***"),
        None => text.to_string(),
    }
}

/// A driver error as text: the server's message for a database error (the driver's own
/// text says only "db error"), else the error and its causes.
pub fn cause(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!("{} ({})", db.message(), db.code().code());
    }
    let mut text = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        let more = s.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        src = s.source();
    }
    text
}

fn tls() -> StoreResult<tokio_postgres_rustls::MakeRustlsConnect> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| StoreError::open(format!("TLS setup failed: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

/// Connect to `url` → the client and the password (to mask in later messages).
pub fn connect(url: &str) -> StoreResult<(Client, Option<String>)> {
    let name = describe(url);
    let mut config = Config::from_str(url)
        .map_err(|e| StoreError::open(format!("store {name}: not a valid PostgreSQL URL ({e})")))?;
    let password = config
        .get_password()
        .map(|p| String::from_utf8_lossy(p).into_owned());
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    config.application_name("oxeval");
    config.keepalives_idle(Duration::from_secs(30));
    let fail = |e: postgres::Error| {
        StoreError::open(mask(
            &format!("store {name}: cannot connect: {}", cause(&e)),
            password.as_deref(),
        ))
    };
    let mut client = match config.get_ssl_mode() {
        SslMode::Disable => config.connect(postgres::NoTls).map_err(fail)?,
        _ => config.connect(tls()?).map_err(fail)?,
    };
    client
        .batch_execute(&format!(
            "SET statement_timeout = '{STATEMENT_TIMEOUT}'; SET lock_timeout = '{STATEMENT_TIMEOUT}'"
        ))
        .map_err(fail)?;
    Ok((client, password))
}
