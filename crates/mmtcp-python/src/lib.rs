//! Python bindings (placeholder until the glue lands).
