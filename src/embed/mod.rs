//! Semantic recall: a static embedding model embedded in the binary.
//!
//! INTERFACE (placeholder until the model lands): [`model`] returns the embedded model, or `None`
//! when this build carries none.

/// A loaded static embedding model.
#[derive(Debug)]
pub struct Model {
    _private: (),
}

/// The embedded model, or `None` when this build carries none.
pub fn model() -> Option<&'static Model> {
    None
}
