//! Value tracing over the scan's facts, shared by every rule: the project's files and their
//! digests (`project`), the value index (`values`), the helpers several rules use (`shared`),
//! the records of what a rule read (`record`), and the interface a rule implements (`rule`,
//! `context`). Nothing here names a rule.

pub mod context;
pub mod flow;
pub mod project;
pub mod record;
pub mod rule;
pub mod shared;
pub mod values;
