//! The one router of the Worker's own paths: `/`, `/_/...` and `/bin/sh` (FIFO Requests,
//! `/NAME/...`, go from the entry module straight to their objects). Plain Rust, so that
//! every path and method is tested natively; `worker::site` and `worker::api` carry out
//! the routes.
//!
//! | path | method | route |
//! |---|---|---|
//! | `/` | GET, HEAD | the home page |
//! | `/_/signin` | POST | send a sign-in link (form field `email`) |
//! | `/_/signin/TOKEN` | GET | the page with the button that signs in |
//! | `/_/signin/TOKEN` | POST | sign in: the session cookie, then `/` |
//! | `/_/signout` | POST | end the session |
//! | `/_/fifos` | POST | make a FIFO from the home page's form |
//! | `/_/edit/NAME` | GET, HEAD | the editor of a FIFO |
//! | `/_/api/account` | GET, DELETE | the caller's account; delete it with its FIFOs |
//! | `/_/api/fifos` | GET | the caller's FIFOs |
//! | `/_/api/fifos/NAME` | PUT, GET, DELETE | a FIFO (`PUT ?from=s3`: a library envelope) |
//! | `/_/api/fifos/NAME/vars/KEY` | PUT, DELETE | a variable |
//! | `/_/api/fifos/NAME/log` | GET | the Request log (`limit`, `before`, `bodies`) |
//! | `/_/api/fifos/NAME/log/ID` | GET | one Request with its deliveries |
//! | `/_/api/fifos/NAME/log/ID/replay` | POST | send a logged Request again |
//! | `/_/api/fifos/NAME/replay` | POST | replay the failed Requests (`failed_since`) |
//! | `/_/api/fifos/NAME/live` | GET | the editor's WebSocket (`crate::live`) |
//! | `/_/api/tokens` | GET, POST | the account's API tokens; make one |
//! | `/_/api/tokens/ID` | DELETE | revoke a token |
//! | `/_/stats`, `/_/stats/fifo/NAME` | GET | memory and storage (`MKFIFO_STATS=1`) |
//! | `/_/fault/panic` | any | crash the Worker (`MKFIFO_FAULTS=1`) |
//! | `/bin/sh` | GET, POST | the public shell |

use crate::envelope::select::form::parse_query;
use crate::names::fifo_name_error;
use crate::protocol::FifoOp;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Home,
    SigninStart,
    SigninPage { token: String },
    SigninFinish { token: String },
    Signout,
    MakeFifo,
    Edit { name: String },
    Api(Api),
    Stats,
    StatsFifo { name: String },
    Fault { what: String },
    Shell,
}

/// A route of the JSON API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Api {
    Account,
    DeleteAccount,
    ListFifos,
    /// An operation on one FIFO, carried out by its object.
    Fifo(FifoOp),
    /// `PUT /_/api/fifos/NAME?from=LIBRARY_NAME`: the FIFO gets that envelope of the
    /// library (`crate::envelope::library`).
    Install {
        name: String,
        envelope: &'static str,
    },
    Tokens,
    CreateToken,
    RevokeToken {
        id: i64,
    },
}

/// A path that is not a route: the status and what to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoRoute {
    pub status: u16,
    pub message: String,
}

impl NoRoute {
    fn new(status: u16, message: impl Into<String>) -> Self {
        NoRoute {
            status,
            message: message.into(),
        }
    }
}

/// The route of `method` on `path` (without the query), with `query` for the log.
pub fn route(method: &str, path: &str, query: &str) -> Result<Route, NoRoute> {
    let get = method == "GET" || method == "HEAD";
    let not_allowed = || {
        Err(NoRoute::new(
            405,
            format!("{method} is not allowed on {path}"),
        ))
    };
    if path == "/" {
        return if get { Ok(Route::Home) } else { not_allowed() };
    }
    if path == "/bin/sh" {
        return match method {
            "GET" | "HEAD" | "POST" => Ok(Route::Shell),
            _ => not_allowed(),
        };
    }
    let Some(rest) = path.strip_prefix("/_/") else {
        return Err(NoRoute::new(404, "not found"));
    };
    let segments: Vec<&str> = rest.split('/').collect();
    let post = method == "POST";
    let chosen = match segments.as_slice() {
        ["signin"] if post => Route::SigninStart,
        ["signin", token] if get && !token.is_empty() => Route::SigninPage {
            token: token.to_string(),
        },
        ["signin", token] if post && !token.is_empty() => Route::SigninFinish {
            token: token.to_string(),
        },
        ["signout"] if post => Route::Signout,
        ["fifos"] if post => Route::MakeFifo,
        ["edit", name] if get => Route::Edit {
            name: fifo_name(name)?,
        },
        ["signin"] | ["signin", _] | ["signout"] | ["fifos"] | ["edit", _] => return not_allowed(),
        ["stats"] if get => Route::Stats,
        ["stats", "fifo", name] if get => Route::StatsFifo {
            name: fifo_name(name)?,
        },
        ["fault", what] => Route::Fault {
            what: what.to_string(),
        },
        // A HEAD is answered as its GET is (the runtime drops the body).
        ["api", api @ ..] => Route::Api(
            api_route(if get { "GET" } else { method }, api, query).map_err(|e| match e {
                Some(e) => e,
                None => NoRoute::new(405, format!("{method} is not allowed on {path}")),
            })?,
        ),
        _ => return Err(NoRoute::new(404, "not found")),
    };
    Ok(chosen)
}

/// `Err(None)`: the path exists but not with this method.
fn api_route(method: &str, segments: &[&str], query: &str) -> Result<Api, Option<NoRoute>> {
    let name = |n: &str| fifo_name(n).map_err(Some);
    let route = match (segments, method) {
        (["account"], "GET") => Api::Account,
        (["account"], "DELETE") => Api::DeleteAccount,
        (["fifos"], "GET") => Api::ListFifos,
        (["fifos", n], "PUT") => match library_name(query).map_err(Some)? {
            Some(envelope) => Api::Install {
                name: name(n)?,
                envelope,
            },
            None => Api::Fifo(FifoOp::Put { name: name(n)? }),
        },
        (["fifos", n], "GET") => Api::Fifo(FifoOp::Get { name: name(n)? }),
        (["fifos", n], "DELETE") => Api::Fifo(FifoOp::Delete { name: name(n)? }),
        (["fifos", n, "vars", key], "PUT") => Api::Fifo(FifoOp::VarPut {
            name: name(n)?,
            key: key.to_string(),
        }),
        (["fifos", n, "vars", key], "DELETE") => Api::Fifo(FifoOp::VarDelete {
            name: name(n)?,
            key: key.to_string(),
        }),
        (["fifos", n, "log"], "GET") => {
            let (limit, before, bodies) = log_query(query).map_err(Some)?;
            Api::Fifo(FifoOp::Log {
                name: name(n)?,
                limit,
                before,
                bodies,
            })
        }
        (["fifos", n, "log", id], "GET") => Api::Fifo(FifoOp::LogEntry {
            name: name(n)?,
            request_id: id.to_string(),
        }),
        (["fifos", n, "log", id, "replay"], "POST") => Api::Fifo(FifoOp::Replay {
            name: name(n)?,
            request_id: id.to_string(),
        }),
        (["fifos", n, "replay"], "POST") => Api::Fifo(FifoOp::ReplayFailed {
            name: name(n)?,
            since: failed_since(query).map_err(Some)?,
        }),
        (["fifos", n, "live"], "GET") => Api::Fifo(FifoOp::Live { name: name(n)? }),
        (["tokens"], "GET") => Api::Tokens,
        (["tokens"], "POST") => Api::CreateToken,
        (["tokens", id], "DELETE") => Api::RevokeToken {
            id: id
                .parse()
                .map_err(|_| Some(NoRoute::new(404, format!("no token {id}"))))?,
        },
        (
            ["account"]
            | ["fifos"]
            | ["fifos", _]
            | ["fifos", _, "vars", _]
            | ["fifos", _, "log"]
            | ["fifos", _, "log", _]
            | ["fifos", _, "log", _, "replay"]
            | ["fifos", _, "replay"]
            | ["fifos", _, "live"]
            | ["tokens"]
            | ["tokens", _],
            _,
        ) => return Err(None),
        _ => {
            return Err(Some(NoRoute::new(
                404,
                format!("no API at /_/api/{}", segments.join("/")),
            )))
        }
    };
    Ok(route)
}

fn fifo_name(name: &str) -> Result<String, NoRoute> {
    match fifo_name_error(name) {
        Some(problem) => Err(NoRoute::new(400, problem)),
        None => Ok(name.to_string()),
    }
}

/// `limit=N&before=ID&bodies=1` of the log.
/// The library envelope that `?from=` names, if the query has one.
fn library_name(query: &str) -> Result<Option<&'static str>, NoRoute> {
    let Some((_, from)) = parse_query(query).into_iter().find(|(k, _)| k == "from") else {
        return Ok(None);
    };
    crate::envelope::library::envelope(&from)
        .map(Some)
        .ok_or_else(|| {
            NoRoute::new(
                400,
                format!(
                    "from={from}: no envelope of that name in the library (it has: {})",
                    crate::envelope::library::names().join(", ")
                ),
            )
        })
}

fn log_query(query: &str) -> Result<(Option<i64>, Option<i64>, bool), NoRoute> {
    let (mut limit, mut before, mut bodies) = (None, None, false);
    for (key, value) in parse_query(query) {
        let number = || {
            value
                .parse::<i64>()
                .map_err(|_| NoRoute::new(400, format!("{key}={value}: a whole number is needed")))
        };
        match key.as_str() {
            "limit" => limit = Some(number()?),
            "before" => before = Some(number()?),
            "bodies" => bodies = matches!(value.as_str(), "1" | "true" | "yes"),
            _ => {}
        }
    }
    Ok((limit, before, bodies))
}

/// `failed_since=MS` of a bulk replay: the earliest time, in ms since the epoch (as the
/// log's `at`).
fn failed_since(query: &str) -> Result<i64, NoRoute> {
    let value = parse_query(query)
        .into_iter()
        .find(|(key, _)| key == "failed_since")
        .map(|(_, value)| value)
        .ok_or_else(|| {
            NoRoute::new(
                400,
                "say since when: failed_since=MS (milliseconds since 1970, as the log's `at`)",
            )
        })?;
    value.parse::<i64>().map_err(|_| {
        NoRoute::new(
            400,
            format!("failed_since={value}: milliseconds since 1970 are needed"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(method: &str, path: &str) -> Route {
        route(method, path, "").unwrap_or_else(|e| panic!("{method} {path}: {e:?}"))
    }

    fn status(method: &str, path: &str) -> u16 {
        route(method, path, "").err().map_or(0, |e| e.status)
    }

    #[test]
    fn site_routes() {
        assert_eq!(ok("GET", "/"), Route::Home);
        assert_eq!(ok("HEAD", "/"), Route::Home);
        assert_eq!(ok("POST", "/_/signin"), Route::SigninStart);
        assert_eq!(
            ok("GET", "/_/signin/t.s"),
            Route::SigninPage {
                token: "t.s".into()
            }
        );
        assert_eq!(
            ok("POST", "/_/signin/t.s"),
            Route::SigninFinish {
                token: "t.s".into()
            }
        );
        assert_eq!(ok("POST", "/_/signout"), Route::Signout);
        assert_eq!(ok("POST", "/_/fifos"), Route::MakeFifo);
        assert_eq!(ok("GET", "/_/edit/a"), Route::Edit { name: "a".into() });
        assert_eq!(ok("POST", "/bin/sh"), Route::Shell);
        assert_eq!(ok("GET", "/_/stats"), Route::Stats);
        assert_eq!(
            ok("GET", "/_/stats/fifo/a"),
            Route::StatsFifo { name: "a".into() }
        );
        for (m, p) in [
            ("POST", "/"),
            ("GET", "/_/signin"),
            ("GET", "/_/signout"),
            ("PUT", "/_/signin/x"),
            ("DELETE", "/bin/sh"),
            ("GET", "/_/fifos"),
            ("POST", "/_/edit/a"),
        ] {
            assert_eq!(status(m, p), 405, "{m} {p}");
        }
        for p in ["/x", "/_/", "/_/nothing", "/_/signin/a/b", "/_/stats/x"] {
            assert_eq!(status("GET", p), 404, "{p}");
        }
        assert_eq!(status("GET", "/_/stats/fifo/Bad"), 400);
        assert_eq!(status("GET", "/_/edit/Bad"), 400);
        assert_eq!(status("GET", "/_/edit/a/b"), 404);
    }

    #[test]
    fn api_routes() {
        let fifo = |m, p| match ok(m, p) {
            Route::Api(Api::Fifo(op)) => op,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            fifo("PUT", "/_/api/fifos/a"),
            FifoOp::Put { name: "a".into() }
        );
        assert_eq!(
            fifo("GET", "/_/api/fifos/a"),
            FifoOp::Get { name: "a".into() }
        );
        assert_eq!(
            fifo("HEAD", "/_/api/fifos/a"),
            FifoOp::Get { name: "a".into() }
        );
        assert_eq!(ok("HEAD", "/_/api/tokens"), Route::Api(Api::Tokens));
        assert_eq!(
            fifo("DELETE", "/_/api/fifos/a"),
            FifoOp::Delete { name: "a".into() }
        );
        assert_eq!(
            fifo("PUT", "/_/api/fifos/a/vars/K"),
            FifoOp::VarPut {
                name: "a".into(),
                key: "K".into()
            }
        );
        assert_eq!(
            fifo("GET", "/_/api/fifos/a/log/r1"),
            FifoOp::LogEntry {
                name: "a".into(),
                request_id: "r1".into()
            }
        );
        assert_eq!(
            route("GET", "/_/api/fifos/a/log", "limit=5&before=9&bodies=1").unwrap(),
            Route::Api(Api::Fifo(FifoOp::Log {
                name: "a".into(),
                limit: Some(5),
                before: Some(9),
                bodies: true
            }))
        );
        assert_eq!(
            route("GET", "/_/api/fifos/a/log", "limit=x")
                .unwrap_err()
                .status,
            400
        );
        assert_eq!(
            fifo("GET", "/_/api/fifos/a/live"),
            FifoOp::Live { name: "a".into() }
        );
        assert_eq!(status("POST", "/_/api/fifos/a/live"), 405);
        assert_eq!(
            fifo("POST", "/_/api/fifos/a/log/r1/replay"),
            FifoOp::Replay {
                name: "a".into(),
                request_id: "r1".into()
            }
        );
        assert_eq!(status("GET", "/_/api/fifos/a/log/r1/replay"), 405);
        assert_eq!(
            route(
                "POST",
                "/_/api/fifos/a/replay",
                "failed_since=1700000000000"
            )
            .unwrap(),
            Route::Api(Api::Fifo(FifoOp::ReplayFailed {
                name: "a".into(),
                since: 1_700_000_000_000
            }))
        );
        assert_eq!(
            route("POST", "/_/api/fifos/a/replay", "")
                .unwrap_err()
                .status,
            400
        );
        assert_eq!(
            route("POST", "/_/api/fifos/a/replay", "failed_since=yesterday")
                .unwrap_err()
                .status,
            400
        );
        assert_eq!(status("GET", "/_/api/fifos/a/replay"), 405);
        assert_eq!(ok("GET", "/_/api/fifos"), Route::Api(Api::ListFifos));
        assert_eq!(ok("GET", "/_/api/tokens"), Route::Api(Api::Tokens));
        assert_eq!(ok("POST", "/_/api/tokens"), Route::Api(Api::CreateToken));
        assert_eq!(
            ok("DELETE", "/_/api/tokens/7"),
            Route::Api(Api::RevokeToken { id: 7 })
        );
        assert_eq!(ok("GET", "/_/api/account"), Route::Api(Api::Account));
        assert_eq!(
            ok("DELETE", "/_/api/account"),
            Route::Api(Api::DeleteAccount)
        );
        assert_eq!(status("DELETE", "/_/api/tokens/x"), 404);
        assert_eq!(status("POST", "/_/api/fifos/x"), 405);
        assert_eq!(status("PUT", "/_/api/fifos"), 405);
        assert_eq!(status("GET", "/_/api/nothing"), 404);
        assert_eq!(status("GET", "/_/api/fifos/Bad"), 400);
        assert_eq!(status("PUT", "/_/api/fifos/sh"), 400);
    }

    #[test]
    fn install_from_the_library() {
        match route("PUT", "/_/api/fifos/files", "from=s3") {
            Ok(Route::Api(Api::Install { name, envelope })) => {
                assert_eq!(name, "files");
                assert!(envelope.contains("S3_BUCKET"));
            }
            other => panic!("{other:?}"),
        }
        let refused = route("PUT", "/_/api/fifos/files", "from=nope").unwrap_err();
        assert_eq!(refused.status, 400);
        assert!(
            refused.message.contains("it has: s3"),
            "{}",
            refused.message
        );
        assert_eq!(
            route("PUT", "/_/api/fifos/a", "other=1"),
            Ok(Route::Api(Api::Fifo(FifoOp::Put { name: "a".into() })))
        );
    }
}
