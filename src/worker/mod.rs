//! The Workers runtime glue (wasm32 only).
