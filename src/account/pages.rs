//! The site's HTML pages: the home page (signed out: the sign-in form; signed in: your
//! FIFOs and a form to make one), the sign-in steps, plain messages, and the editor's
//! frame (its script, `web/editor/`, fills it in). Written by hand: a few small pages need
//! no template engine. Every value is escaped by [`escape`].

use crate::protocol::FifoSummary;

/// Text made safe for HTML content and for attribute values in double quotes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:3rem auto;padding:0 1rem;color:#222}\
pre,code,textarea{font:14px/1.4 ui-monospace,monospace}pre,code{background:#f4f4f4}pre{padding:.75rem;overflow-x:auto}\
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.25rem .5rem;border-bottom:1px solid #ddd}\
textarea{width:100%}input[type=email],input[type=text]{width:20rem;max-width:100%}form{margin:1rem 0}";

/// The site has no icon: this keeps browsers from asking for `/favicon.ico`, which would be
/// a FIFO's path (and not a valid name).
const NO_ICON: &str = "<link rel=\"icon\" href=\"data:,\">";

/// A whole page around `body` (already HTML).
fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n{NO_ICON}\n<style>{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        escape(title)
    )
}

const INTRO: &str = "<h1>mkfifo</h1>\n\
<p>Named pipes for the web. A FIFO is a name, such as <code>my-movies</code>: it is an HTTPS \
endpoint (<code>/my-movies/...</code>, any method) and an email address. Every request or email \
written into it runs through its <em>envelope</em>: values picked out of the body, a pipeline of \
well-known Unix tools, and a destination.</p>\n\
<pre>\nTo: https://api.example.com/movies/$id\nMethod: PUT\n$id = .movie.id\n\n\
jq '{title: .movie.title, year: .movie.year}'\n</pre>\n\
<p>Try the shell: <a href=\"/bin/sh?echo%20hello%20%7C%20tr%20a-z%20A-Z\"><code>/bin/sh?echo hello | tr a-z A-Z</code></a></p>\n";

/// The home page of someone not signed in; `next` is where signing in leads (a path of
/// the site, `crate::account::next`), home when `None`.
pub fn home_signed_out(next: Option<&str>) -> String {
    let next = next.map_or_else(String::new, |n| {
        format!(
            "<input type=\"hidden\" name=\"next\" value=\"{}\">\n",
            escape(n)
        )
    });
    page(
        "mkfifo: named pipes for the web",
        &format!(
            "{INTRO}<h2>Sign in</h2>\n\
             <p>With your email address: we send you a link that signs you in.</p>\n\
             <form method=\"post\" action=\"/_/signin\">\n{next}\
             <input type=\"email\" name=\"email\" required autocomplete=\"email\" placeholder=\"you@example.com\">\n\
             <button type=\"submit\">Send me a link</button>\n</form>\n"
        ),
    )
}

/// The home page of a signed-in person: their FIFOs, a form to make one, signing out.
pub fn home_signed_in(email: &str, fifos: &[FifoSummary], now_ms: i64) -> String {
    let mut list = String::new();
    if fifos.is_empty() {
        list.push_str("<p>You have no FIFOs yet.</p>\n");
    } else {
        list.push_str("<table>\n<tr><th>FIFO</th><th>last Request</th><th>Requests logged</th><th></th></tr>\n");
        for f in fifos {
            let name = escape(&f.name);
            let last = f
                .last_request_at
                .map_or_else(|| "never".to_string(), |at| ago(now_ms - at));
            list.push_str(&format!(
                "<tr><td><a href=\"/{name}/\"><code>/{name}/</code></a></td><td>{last}</td><td>{}</td>\
                 <td><a href=\"/_/edit/{name}\">edit</a></td></tr>\n",
                f.log_entries
            ));
        }
        list.push_str("</table>\n");
    }
    page(
        "mkfifo: your FIFOs",
        &format!(
            "<h1>mkfifo</h1>\n<p>Signed in as <strong>{}</strong>.</p>\n\
             <form method=\"post\" action=\"/_/signout\"><button type=\"submit\">Sign out</button></form>\n\
             <h2>Your FIFOs</h2>\n{list}\
             <h2>Make a FIFO</h2>\n\
             <form method=\"post\" action=\"/_/fifos\">\n\
             <p><label>Name <input type=\"text\" name=\"name\" required pattern=\"[a-z0-9]([a-z0-9\\-]*[a-z0-9])?\" maxlength=\"63\" placeholder=\"my-fifo\"></label></p>\n\
             <p><label>Envelope<br><textarea name=\"envelope\" rows=\"8\" placeholder=\"To: -&#10;&#10;tr a-z A-Z\"></textarea></label></p>\n\
             <button type=\"submit\">Make it</button>\n</form>\n",
            escape(email)
        ),
    )
}

/// The editor of FIFO `name`: the frame that `/assets/editor.js` fills in and drives
/// (the envelope, the variables, "try it", the live log). No inline script or style: the
/// page's Content-Security-Policy forbids them.
pub fn editor(name: &str) -> String {
    let name = escape(name);
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{name} · mkfifo</title>\n{NO_ICON}\n\
         <link rel=\"stylesheet\" href=\"/assets/editor.css\">\n\
         <script type=\"module\" src=\"/assets/editor.js\"></script>\n</head>\n\
         <body data-fifo=\"{name}\">\n\
         <header><a href=\"/\">mkfifo</a> / <strong>{name}</strong> \
         <span id=\"live-state\" role=\"status\">connecting</span></header>\n\
         <main>\n\
         <section id=\"envelope\"><h2>Envelope</h2>\n<div id=\"editor\"></div>\n\
         <p><button type=\"button\" id=\"save\">Save</button> <kbd>Ctrl</kbd>+<kbd>S</kbd> \
         <output id=\"save-status\" role=\"status\"></output></p></section>\n\
         <section id=\"vars\"><h2>Variables</h2>\n\
         <table><thead><tr><th>name</th><th>length</th><th></th></tr></thead>\
         <tbody id=\"var-list\"></tbody></table>\n\
         <form id=\"var-form\"><label>Name <input name=\"name\" required pattern=\"[A-Za-z_][A-Za-z0-9_]*\" maxlength=\"64\"></label> \
         <label>Value <input name=\"value\" type=\"password\" autocomplete=\"off\"></label> \
         <button type=\"submit\">Set</button> <output id=\"var-status\" role=\"status\"></output></form></section>\n\
         <section id=\"try\"><h2>Try it</h2>\n\
         <form id=\"try-form\"><p class=\"request-line\"><select name=\"method\" aria-label=\"method\">\
         <option>POST</option><option>GET</option><option>PUT</option><option>PATCH</option>\
         <option>DELETE</option><option>HEAD</option><option>OPTIONS</option></select> \
         <label>/{name}/<input name=\"path\" aria-label=\"sub-path\" placeholder=\"sub/path?query\"></label> \
         <button type=\"submit\">Send</button></p>\n\
         <p><label>Headers (one <code>Name: value</code> a line)<br>\
         <textarea name=\"headers\" rows=\"2\"></textarea></label></p>\n\
         <p><label>Body<br><textarea name=\"body\" rows=\"4\"></textarea></label></p></form>\n\
         <div id=\"try-answer\" hidden></div></section>\n\
         <section id=\"log\"><h2>Requests</h2>\n\
         <p id=\"next-run\" hidden></p>\n\
         <table><thead><tr><th>time</th><th>method</th><th>path</th><th>status</th>\
         <th>ms</th><th>bytes</th></tr></thead><tbody id=\"log-list\"></tbody></table>\n\
         <p id=\"log-gap\" hidden>Some older Requests were missed while away: \
         <a href=\"/_/api/fifos/{name}/log\">the whole log</a>.</p>\n\
         <div id=\"log-entry\" hidden></div></section>\n\
         </main>\n</body>\n</html>\n"
    )
}

/// The page after a sign-in link was sent.
pub fn check_mail(email: &str) -> String {
    message(
        "Check your mail",
        &format!(
            "If {} is an address that can get mail, a message with a sign-in link is on its way. \
             The link works once, within 15 minutes.",
            email
        ),
    )
}

/// The page a sign-in link opens: a button that POSTs to the link, so that a mail
/// scanner that fetches links signs no one in.
pub fn confirm_signin(action: &str) -> String {
    page(
        "Sign in to mkfifo",
        &format!(
            "<h1>Sign in to mkfifo</h1>\n<p>Press the button to finish signing in.</p>\n\
             <form method=\"post\" action=\"{}\"><button type=\"submit\">Sign in</button></form>\n",
            escape(action)
        ),
    )
}

/// A page with a heading and a line of text (escaped), and a way home.
pub fn message(title: &str, text: &str) -> String {
    page(
        title,
        &format!(
            "<h1>{}</h1>\n<p>{}</p>\n<p><a href=\"/\">mkfifo</a></p>\n",
            escape(title),
            escape(text)
        ),
    )
}

/// How long ago, as a person says it.
fn ago(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    match s {
        0..=59 => "just now".into(),
        60..=3599 => format!("{} min ago", s / 60),
        3600..=86_399 => format!("{} h ago", s / 3600),
        _ => format!("{} days ago", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn values_are_escaped_in_pages() {
        let evil = "<script>alert(1)</script>@example.com";
        for html in [
            check_mail(evil),
            message(evil, evil),
            home_signed_in(evil, &[], 0),
        ] {
            assert!(!html.contains("<script>"), "{html}");
            assert!(html.contains("&lt;script&gt;"));
        }
        let html = editor("a\"><x");
        assert!(html.contains("data-fifo=\"a&quot;&gt;&lt;x\""));
        assert!(!html.contains("<x"));
        let html = confirm_signin("/_/signin/\"><x");
        assert!(html.contains("action=\"/_/signin/&quot;&gt;&lt;x\""));
    }

    #[test]
    fn home_lists_fifos() {
        let fifos = vec![
            FifoSummary {
                name: "alpha".into(),
                last_request_at: Some(1_000),
                log_entries: 3,
                ..Default::default()
            },
            FifoSummary {
                name: "beta".into(),
                ..Default::default()
            },
        ];
        let html = home_signed_in("ada@example.com", &fifos, 121_000);
        assert!(
            html.contains("<code>/alpha/</code></a></td><td>2 min ago</td><td>3</td>"),
            "{html}"
        );
        assert!(
            html.contains("<code>/beta/</code></a></td><td>never</td><td>0</td>"),
            "{html}"
        );
        assert!(html.contains("<a href=\"/_/edit/alpha\">edit</a>"));
        assert!(html.contains("action=\"/_/fifos\""));
        assert!(html.contains("action=\"/_/signout\""));
        assert!(home_signed_out(None).contains("action=\"/_/signin\""));
        assert!(!home_signed_out(None).contains("name=\"next\""));
        assert!(home_signed_out(Some("/_/edit/a\"b"))
            .contains("<input type=\"hidden\" name=\"next\" value=\"/_/edit/a&quot;b\">"));
    }

    #[test]
    fn ages() {
        assert_eq!(ago(-5), "just now");
        assert_eq!(ago(59_999), "just now");
        assert_eq!(ago(60_000), "1 min ago");
        assert_eq!(ago(7_200_000), "2 h ago");
        assert_eq!(ago(3 * 86_400_000), "3 days ago");
    }
}
