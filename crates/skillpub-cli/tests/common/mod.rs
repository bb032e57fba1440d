//! What the CLI's integration tests share: reading the report of `skillpub check --json`.

/// The lines of a `skillpub check --json` report.
pub(crate) struct Report(pub(crate) serde_json::Value);

impl Report {
    /// Reads the standard output of a run; panics with it when it is not JSON.
    pub(crate) fn parse(stdout: &str) -> Self {
        Self(serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}")))
    }

    /// Every line, in the order of the report.
    pub(crate) fn checks(&self) -> &[serde_json::Value] {
        self.0["checks"].as_array().expect("a list of checks")
    }

    /// The line with this status, subject and code; panics with the report without one.
    pub(crate) fn line(&self, status: &str, subject: &str, code: &str) -> &serde_json::Value {
        self.checks()
            .iter()
            .find(|c| c["status"] == status && c["subject"] == subject && c["code"] == code)
            .unwrap_or_else(|| panic!("no {status} line `{subject}` {code}:\n{:#}", self.0))
    }

    /// The message of the line with this status, subject and code.
    pub(crate) fn message(&self, status: &str, subject: &str, code: &str) -> &str {
        self.line(status, subject, code)["message"]
            .as_str()
            .expect("a message")
    }

    /// The aiSiteReady grade: its status and its reason.
    pub(crate) fn grade(&self) -> (&str, &str) {
        let grade = &self.0["aisiteready"];
        let field = |name: &str| {
            grade[name]
                .as_str()
                .unwrap_or_else(|| panic!("no aisiteready {name}:\n{:#}", self.0))
        };
        (field("status"), field("reason"))
    }

    /// The lines of one code.
    pub(crate) fn of(&self, code: &str) -> Vec<&serde_json::Value> {
        self.checks().iter().filter(|c| c["code"] == code).collect()
    }

    /// `(subject, code)` of every failed line.
    pub(crate) fn failures(&self) -> Vec<(&str, &str)> {
        self.checks()
            .iter()
            .filter(|c| c["status"] == "fail")
            .map(|c| (c["subject"].as_str().unwrap(), c["code"].as_str().unwrap()))
            .collect()
    }
}
