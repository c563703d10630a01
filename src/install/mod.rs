//! Hook registration: the table of what `capn init` installs and the merge into host settings.
