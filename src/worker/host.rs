//! The [`Host`] of the core inside the Worker: the runtime's clock, its random source and
//! its `fetch`.

use crate::host::{HttpRequest, HttpResponse, LocalFuture, Timestamp};
use crate::Host;
use worker::{Fetch, Headers, Method, Request, RequestInit, RequestRedirect};

#[derive(Debug, Default)]
pub struct WorkerHost;

impl Host for WorkerHost {
    fn now(&self) -> Timestamp {
        let ms = worker::Date::now().as_millis() as i64;
        Timestamp {
            secs: ms.div_euclid(1000),
            nanos: (ms.rem_euclid(1000) * 1_000_000) as u32,
        }
    }

    fn fill_random(&self, buf: &mut [u8]) {
        // The Workers runtime always has Web Crypto.
        let crypto = js_sys::Reflect::get(&js_sys::global(), &"crypto".into()).ok();
        let array = js_sys::Uint8Array::new_with_length(buf.len() as u32);
        if let Some(crypto) = crypto {
            let get = js_sys::Reflect::get(&crypto, &"getRandomValues".into()).ok();
            if let Some(get) =
                get.and_then(|f| wasm_bindgen::JsCast::dyn_into::<js_sys::Function>(f).ok())
            {
                let _ = get.call1(&crypto, &array);
            }
        }
        array.copy_to(buf);
    }

    fn fetch(&self, request: HttpRequest) -> LocalFuture<'_, Result<HttpResponse, String>> {
        Box::pin(async move { fetch(request).await.map_err(|e| e.to_string()) })
    }
}

async fn fetch(request: HttpRequest) -> worker::Result<HttpResponse> {
    let headers = Headers::new();
    for (name, value) in &request.headers {
        headers.append(name, value)?;
    }
    let mut init = RequestInit::new();
    init.with_method(Method::from(request.method.to_ascii_uppercase()))
        .with_headers(headers)
        .with_redirect(if request.follow_redirects {
            RequestRedirect::Follow
        } else {
            RequestRedirect::Manual
        });
    if !request.body.is_empty() {
        init.with_body(Some(
            js_sys::Uint8Array::from(request.body.as_slice()).into(),
        ));
    }
    let req = Request::new_with_init(&request.url, &init)?;
    let mut resp = Fetch::Request(req).send().await?;
    let headers = resp.headers().entries().collect();
    // The runtime's Response does not say where redirects led; the request's URL stands in.
    let url = request.url.clone();
    let body = resp.bytes().await?;
    Ok(HttpResponse {
        status: resp.status_code(),
        reason: String::new(),
        headers,
        body,
        url,
    })
}
