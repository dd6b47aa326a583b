//! What this addon is: the build profile it was compiled with (the CLI names it, and warns
//! before a large run on a debug build).

use napi_derive::napi;

/// `'debug'` for a build with debug assertions (`npm run build:debug`, the addon `npm test`
/// and `npm run demo` build), else `'release'` (`npm run build`, the published packages).
#[napi]
pub fn build_profile() -> String {
    if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    }
    .to_string()
}
