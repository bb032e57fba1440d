//! `security.script`: commands and code that an agent may run and should not run blindly:
//! remote code piped to a shell or downloaded and then run, eval of fetched text, deletes of
//! the machine's or the user's folders, world-writable permissions and setuid shells, reverse
//! shells, persistence in crontab or shell start-up files, and TLS verification turned off
//! (code that is decoded or built from pieces and run is `security.obfuscation`). Read in scripts and in every line of the Markdown (fenced or in a sentence: "Run
//! `curl ... | sh`" asks for it as much as a script does), as they are read
//! (`skillpub_core::security::reading`): a command split into pieces or continued on the next
//! line is read whole.
//!
//! What is not a finding: a download whose checksum is verified before it runs (it is not
//! piped), an interpreter that reads a download as data (`curl ... | python3 -c '...'`,
//! `| python3 -m json.tool`, `| sh -c '...'`), `rm -rf "$tmp"` on a `mktemp` folder or any
//! other variable or relative path, and TLS turned off for `localhost`.

use std::sync::LazyLock;

use regex::Regex;

use super::super::{Advice, AdviceRule, Input};
use super::flow::Sink;
use super::triggers::Family;
use super::{finding, found_at, instructions};

/// One kind of risky command: its pattern, what the finding says it does, why it matters
/// and how to fix it, and a pattern that, found on the line, makes it ordinary.
struct Risk {
    pattern: &'static str,
    what: &'static str,
    fix: &'static str,
    unless: Option<&'static str>,
}

/// TLS turned off for the machine itself risks nothing.
const LOCAL: &str = r"(?i)\b(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])\b|\.local\b|\.test\b";

/// A line added to a shell start-up file that only sets a variable or an alias (the
/// installers' `export PATH=...`), with no download or decoding in it.
const SETTING: &str = r#"^[^|]*\b(?:echo|printf)\s+(?:-e\s+)?["'](?:export\s+|alias\s+)[A-Za-z_][A-Za-z0-9_]*=[^|;&]*$"#;

/// Every kind, each pattern starting with literal words.
const RISKS: [Risk; 8] = [
    Risk {
        pattern: r"\b(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\s+[^\s|][^\n|]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:(?:ba|z|k|da|fi)?sh\b|(?:python[23]?|node|perl|ruby|php)\s*(?:-\s|-$|-[`'\x22)]|$|[;&|)`])|iex\b|Invoke-Expression\b|pwsh\b|powershell\b)",
        what: "pipes a download into a shell or an interpreter",
        fix: "an agent that runs it executes whatever the server sends at that moment, unreviewed: download the file, verify its checksum (`sha256sum -c`), then run it, or install from a package manager",
        unless: None,
    },
    Risk {
        pattern: r"\b(?:(?:ba|z)?sh|source|\.)\s+<\(\s*(?:curl|wget)\b|\beval\s+[\x22']?\$\(\s*(?:curl|wget)\b|\b(?:ba|z)?sh\s+-c\s+[\x22']\$\(\s*(?:curl|wget)\b|\b(?:iex|Invoke-Expression)\s*\(?\s*(?:\(?\s*New-Object\s+(?:System\.)?Net\.WebClient\s*\)?\.DownloadString|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b|\bexec\s*\(\s*(?:requests\.get|urllib\.request\.urlopen|urlopen)\s*\(|\beval\s*\(\s*(?:await\s+)?(?:fetch|axios\.get|\$\.get)\s*\(",
        what: "runs code fetched from the network",
        fix: "an agent that runs it executes whatever the server sends at that moment, unreviewed: ship the code in the skill, or download it, verify its checksum, then run it",
        unless: None,
    },
    Risk {
        pattern: r"\brm\s+(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)(?:\s+-[a-zA-Z-]+)*\s+[\x22']?(?:~|\$HOME|\$\{HOME[^}\s]*\}|\$\w+|\$\{\w+\})[\x22']?/(?:\*|\.\[)|\brm\s+(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)(?:\s+-[a-zA-Z-]+)*\s+(?:--no-preserve-root\s+)?[\x22']?(?:/|/\*|~/?|~/\*|\$HOME/?|\$\{HOME\}/?|\$HOME/\*|/(?:etc|usr|var|bin|sbin|boot|home|root|opt|lib|lib64|System|Library|Users|Applications)/?|\*|\.\.?/?)[\x22']?(?:\s|$|;|&|\|)|--no-preserve-root\b|\bshutil\.rmtree\(\s*(?:[\x22'](?:/|~)[\x22']|os\.path\.expanduser\(\s*[\x22']~[\x22']\s*\)|(?:pathlib\.)?Path\.home\(\))|\bfs\.(?:rmSync|rm|rmdirSync)\(\s*[\x22'](?:/|~)[\x22']|\bfind\s+(?:/|~|\$HOME)\s+[^\n]*-delete\b|\bdd\s+if=\S+\s+of=/dev/(?:sd|nvme|hd|disk)|\bmkfs(?:\.\w+)?\s+/dev/|:\(\)\s*\{\s*:\|:&\s*\};:",
        what: "deletes or overwrites the machine's or the user's folders",
        fix: "one mistyped path or empty variable and the agent wipes the user's files: delete only what the skill made, in a folder from `mktemp -d`, or by a path relative to the skill's work folder",
        unless: None,
    },
    Risk {
        pattern: r"\bchmod\s+(?:-[a-zA-Z]+\s+)*(?:0?777|0?666|[ugoa]*[oa][ugoa]*\+[rxXst]*w[rwxXst]*|a=rwx|o=rwx|ugo=rwx)(?:\s|$)|\b(?:os\.chmod|fs\.chmod(?:Sync)?)\s*\([^)\n]*,\s*0o?(?:777|666)\b",
        what: "makes files writable by every user",
        fix: "any process on the machine can then change what the agent runs or reads: give the owner alone write access (`chmod 755`, `644`, `u+x`)",
        unless: None,
    },
    Risk {
        pattern: r"\bchmod\s+(?:-[a-zA-Z]+\s+)*(?:[ua]*\+[rwxX]*s[rwxXt]*|0?[4-7][0-7]{3})\s+[^\s;&|]+",
        what: "makes a program run with its owner's rights (setuid)",
        fix: "a setuid copy of a shell or a script in a writable folder gives anyone on the machine its owner's rights, root's when run with sudo: remove it",
        unless: Some(
            r"\bchmod\s+(?:-[a-zA-Z]+\s+)*0?[4-7][0-7]{3}\s+[^\s;&|]*/$|\bchmod\s+(?:-[a-zA-Z]+\s+)*(?:0?2[0-7]{3}|g\+s)",
        ),
    },
    Risk {
        pattern: r"/dev/(?:tcp|udp)/[^\s/]*[0-9a-zA-Z][^\n]*(?:>&|<&|0>&1)|(?:>&|<&|\bexec\s+\d*<>)[^\n]*/dev/(?:tcp|udp)/|(?:^|[\s;&|(`])(?:nc|ncat|netcat)\s[^\n|;]*\s-[a-zA-Z]*[ec]\s|\bsocat\b[^\n]*\bexec:|\b(?:ba)?sh\s+-i\s*[>&]|\bpty\.spawn\s*\(|\bos\.dup2\s*\(\s*\w+\.fileno\(\)|\bmkfifo\b[^\n]*\b(?:nc|ncat|netcat)\b",
        what: "opens a shell to a remote host (a reverse shell)",
        fix: "it hands control of the user's machine to whoever listens: remove it",
        unless: None,
    },
    Risk {
        pattern: r"\|\s*crontab\s+(?:-u\s+\S+\s+)?-(?:\s|$)|\bcrontab\s+-(?:\s*$|\s+[;&|])|\bcrontab\s+[^-\s]\S*\.(?:txt|cron|tab)\b|@reboot\b|>>?\s*[\x22']?(?:~|\$HOME|\$\{HOME\})/\.(?:bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|config/fish/config\.fish)\b|\btee\s+(?:-a\s+)?[\x22']?(?:~|\$HOME|\$\{HOME\})/\.(?:bashrc|bash_profile|profile|zshrc|zprofile|zshenv)\b|(?:~|\$HOME)/Library/LaunchAgents/|/Library/Launch(?:Agents|Daemons)/|\blaunchctl\s+(?:load|bootstrap)\b|~/\.config/autostart/|\bschtasks\s+/create\b|\breg\s+add\s+[^\n]*\\(?:Run|RunOnce)\b|\b(?:New|Set)-ItemProperty\b[^\n]*CurrentVersion\\Run|/etc/(?:cron\.|crontab\b|rc\.local\b)",
        what: "makes itself run again later (crontab, a shell start-up file, a launch agent)",
        fix: "it keeps running after the task, in every later session, where the user does not look: tell the user what to add and let them add it",
        unless: Some(SETTING),
    },
    Risk {
        pattern: r"\bcurl\b[^\n|;]*\s(?:-[a-zA-Z]*k[a-zA-Z]*|--insecure)(?:\s|$)|\bwget\b[^\n|;]*--no-check-certificate\b|\b(?:requests|httpx|session|client|urllib3|aiohttp)\b[^\n]*\bverify\s*=\s*False\b|\.(?:get|post|put|patch|delete|head|request|Client|AsyncClient)\([^\n]*\bverify\s*=\s*False\b|\bNODE_TLS_REJECT_UNAUTHORIZED\s*=\s*[\x22']?0|\brejectUnauthorized\s*:\s*false\b|\bPYTHONHTTPSVERIFY\s*=\s*[\x22']?0|\bhttp\.sslVerify\s*(?:=\s*|\s+)false\b|\bGIT_SSL_NO_VERIFY\s*=\s*[\x22']?(?:1|true)|\bInsecureSkipVerify\s*:\s*true\b|\bssl\._create_unverified_context\b|\bcheck_hostname\s*=\s*False\b|\bverify_mode\s*=\s*ssl\.CERT_NONE\b|\bCURLOPT_SSL_VERIFY(?:PEER|HOST)\s*,\s*(?:0|false)\b|\bstrict-ssl\s+false\b|-SkipCertificateCheck\b",
        what: "turns off TLS certificate verification",
        fix: "anyone on the network path can then read and change what the agent sends and receives: keep verification on, and give the tool the CA certificate it needs",
        unless: Some(LOCAL),
    },
];

/// Every risk, for the scan.
pub(crate) static SCRIPT: LazyLock<Regex> = LazyLock::new(|| {
    let alternatives: Vec<String> = RISKS
        .iter()
        .map(|risk| format!("(?:{})", risk.pattern))
        .collect();
    super::ascii_words(&format!("(?m){}", alternatives.join("|")))
});

/// Each risk alone, to tell which one a match is, with its `unless`.
static EACH: LazyLock<Vec<(Regex, Option<Regex>)>> = LazyLock::new(|| {
    let regex = super::ascii_words;
    RISKS
        .iter()
        .map(|risk| {
            (
                regex(&format!("(?m)^(?:{})", risk.pattern)),
                risk.unless.map(regex),
            )
        })
        .collect()
});

/// After `| sh`: `-c` gives the shell its command as an argument, and the download is data.
static COMMAND_ARGUMENT: LazyLock<Regex> = security_regex!(r"^\s+-[a-zA-Z]*c\b");

/// `security.script` in every text file of the skill.
pub(crate) fn script(input: &Input<'_>) -> Vec<Advice> {
    let clock = &input.clock;
    let mut advice = Vec::new();
    for text in input.read() {
        for (at, matched) in instructions(&SCRIPT, Family::Script, text, clock, false, |_, _| true)
        {
            let Some(kind) = EACH
                .iter()
                .position(|(regex, _)| clock.is_match(regex, matched))
            else {
                continue;
            };
            let (risk, unless) = (&RISKS[kind], &EACH[kind].1);
            let line = text.line(text.line_of(at));
            let after = &text.text[at + matched.len()..];
            let after = &after[..after.find('\n').unwrap_or(after.len())];
            if unless
                .as_ref()
                .is_some_and(|unless| clock.is_match(unless, line))
                || (matched.ends_with("sh") && clock.is_match(&COMMAND_ARGUMENT, after))
            {
                continue;
            }
            advice.push(finding(
                AdviceRule::SecurityScript,
                text,
                at,
                risk.what,
                risk.fix,
            ));
        }
    }
    for (text, at) in input.flows(Sink::RunFetched) {
        if !found_at(&advice, text, at) {
            advice.push(finding(
                AdviceRule::SecurityScript,
                text,
                at,
                "runs code it downloaded on an earlier line, unverified",
                "an agent that runs it executes whatever the server sent, unreviewed: verify the download's checksum (`sha256sum -c`) before running it, or install from a package manager",
            ));
        }
    }
    advice.sort_by(|a, b| (a.file(), a.line()).cmp(&(b.file(), b.line())));
    advice
}
