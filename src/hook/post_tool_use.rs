//! `capn hook post-tool-use`: the offers of [`super::pre_tool_use`] after the search instead of
//! before it, for hosts whose pre-tool event cannot add context but whose post-tool event appends
//! it to the tool's result: Gemini CLI's AfterTool, Qwen Code's PostToolUse and Copilot CLI's
//! postToolUse (docs/hosts.md). The tool call's own input decides, as
//! before the search; the tool's result is never read. A chart offered once in a session is not
//! offered again ([`super::offer`]), so a host that runs both events gets it once.

use super::Ctx;
use anyhow::Result;

/// Runs PostToolUse; returns the `additionalContext` to inject, if any.
pub(crate) fn run(ctx: &Ctx) -> Result<Option<String>> {
    super::pre_tool_use::run_at(ctx, true)
}
