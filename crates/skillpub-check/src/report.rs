//! What a check run reports: one line per check, each with its outcome, its code, what it is
//! about and what was seen; as text for people and as JSON for scripts.

use std::fmt;

use serde_json::json;

use crate::grade::Grade;
use crate::outcome::{Cause, Status};
use crate::table::{CheckKind, Finding};

/// One check's line: its outcome, its code, what it is about (`index`, a skill name, `site`)
/// and what was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// Which check, with its stable code.
    pub kind: CheckKind,
    /// The outcome.
    pub status: Status,
    /// What it is about.
    pub subject: String,
    /// What was seen, and for a problem, what is wrong.
    pub message: String,
    /// The typed error behind a problem, when there is one.
    pub cause: Option<Cause>,
}

impl Check {
    /// The stable code of the check, such as `entry.digest`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }
}

/// The lines of a run, or of one entry, in order.
#[derive(Default)]
pub(crate) struct Lines(pub(crate) Vec<Check>);

impl Lines {
    pub(crate) fn push(&mut self, subject: &str, finding: Finding) {
        self.0.push(Check {
            kind: finding.kind,
            status: finding.status,
            subject: subject.to_owned(),
            message: finding.message,
            cause: finding.cause,
        });
    }
}

/// Every check run against one site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The target as given.
    pub target: String,
    /// The checks, in the order they ran.
    pub checks: Vec<Check>,
    /// What the aiSiteReady scanner's `agent_skills` check would say about the well-known
    /// index; `None` when the target is not a URL.
    pub aisiteready: Option<Grade>,
}

impl Report {
    /// Whether no check failed.
    #[must_use]
    pub fn passed(&self) -> bool {
        !self.checks.iter().any(|check| check.status == Status::Fail)
    }

    /// How many checks ended with `status`.
    #[must_use]
    pub fn count(&self, status: Status) -> usize {
        self.checks
            .iter()
            .filter(|check| check.status == status)
            .count()
    }

    /// The failed checks.
    pub fn failures(&self) -> impl Iterator<Item = &Check> {
        self.checks
            .iter()
            .filter(|check| check.status == Status::Fail)
    }

    /// The lines of one kind of check.
    ///
    /// # Example
    ///
    /// ```
    /// use skillpub_check::{Check, CheckKind, Report, Status};
    ///
    /// let report = Report {
    ///     target: "https://example.com".into(),
    ///     checks: vec![Check {
    ///         kind: CheckKind::SiteCors,
    ///         status: Status::Warn,
    ///         subject: "site".into(),
    ///         message: "no Access-Control-Allow-Origin".into(),
    ///         cause: None,
    ///     }],
    ///     aisiteready: None,
    /// };
    /// assert_eq!(report.of(CheckKind::SiteCors).count(), 1);
    /// assert!(report.passed());
    /// assert_eq!(report.checks[0].code(), "site.cors");
    /// ```
    pub fn of(&self, kind: CheckKind) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(move |check| check.kind == kind)
    }

    /// The report as one JSON object: `target`, `passed`, `summary`, `checks`, each check
    /// with its `status` (`ok`, `warn` or `fail`), `code`, `subject` and `message` (and, on a
    /// line of the authoring advice, `skill.advice`, its `rule`, such as
    /// `description.no-trigger`), and `aisiteready`, the grade's `status` (`PASS`, `PARTIAL`,
    /// `UNKNOWN` or `FAIL`) and `reason` (`null` without a grade).
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        let checks: Vec<_> = self
            .checks
            .iter()
            .map(|c| {
                let mut check = json!({
                    "status": c.status.label().to_ascii_lowercase(),
                    "code": c.code(),
                    "subject": c.subject,
                    "message": c.message,
                });
                if let Some(Cause::Advice(advice)) = &c.cause {
                    check["rule"] = json!(advice.code());
                }
                check
            })
            .collect();
        let aisiteready = self
            .aisiteready
            .as_ref()
            .map(|grade| json!({"status": grade.status.label(), "reason": grade.reason}));
        json!({
            "target": self.target,
            "passed": self.passed(),
            "summary": {"ok": self.count(Status::Ok), "warn": self.count(Status::Warn), "fail": self.count(Status::Fail)},
            "checks": checks,
            "aisiteready": aisiteready,
        })
    }

    /// The summary line.
    #[must_use]
    pub fn summary(&self) -> String {
        format!(
            "{} ok, {} warnings, {} failed",
            self.count(Status::Ok),
            self.count(Status::Warn),
            self.count(Status::Fail)
        )
    }
}

impl fmt::Display for Report {
    /// One line per check: the outcome, the code, then `subject: message`; then the grade,
    /// `aiSiteReady agent_skills: <STATUS> (<reason>)`, and the summary. Control
    /// characters, bidirectional controls and invisible characters from the server are
    /// escaped (`\u{202e}`), so a hostile `$schema` or name can neither drive the terminal
    /// nor display reversed or hidden.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = CheckKind::ALL
            .iter()
            .map(|kind| kind.code().len())
            .max()
            .unwrap_or_default();
        for check in &self.checks {
            let subject = printable(&check.subject);
            let message = printable(&check.message);
            writeln!(
                f,
                "{:<5} {:<width$} {subject}: {message}",
                check.status.label(),
                check.code()
            )?;
        }
        if let Some(grade) = &self.aisiteready {
            let reason = printable(&grade.reason);
            writeln!(f, "aiSiteReady agent_skills: {} ({reason})", grade.status)?;
        }
        write!(f, "{}", self.summary())
    }
}

/// Escapes what would let server text change how a line displays: control characters
/// (a terminal's escape sequences), bidirectional overrides, embeddings, isolates and marks
/// (a name shown reversed), and invisible characters (zero-width spaces and joiners, the
/// byte order mark, soft hyphens, tag characters).
fn printable(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    for c in text.chars() {
        if is_deceptive(c) {
            shown.extend(c.escape_default());
        } else {
            shown.push(c);
        }
    }
    shown
}

/// Whether a character is a control character or an invisible or direction-changing format
/// character.
fn is_deceptive(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{061C}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{E0000}'..='\u{E007F}'
        )
}
