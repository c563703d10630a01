//! The per-user state dir and per-session state (markers, state file). See format.md,
//! "Per-user state dir".
