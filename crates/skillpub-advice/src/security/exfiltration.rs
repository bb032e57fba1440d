//! `security.exfiltration`: instructions or code that send what an agent can reach (the whole
//! environment, key and credential files, the conversation or the system prompt) to a host
//! other than the one a task calls. Reading one environment variable the user sets to call
//! its own API is how a skill should authenticate, and is not a finding; sending the whole
//! environment, a private key or the conversation anywhere is, and so is sending anything to
//! a paste site, a tunnel, a request catcher or a chat webhook.

use std::sync::LazyLock;

use regex::Regex;

use super::super::clock::Clock;
use super::super::{Advice, AdviceRule, Input};
use super::flow::Sink;
use super::text::{Kind, Text};
use super::triggers::Family;
use super::{ILLUSTRATIVE, finding, first_bytes, found_at, instructions, last_bytes};

/// The files and folders that hold credentials or the machine's secrets: a private SSH key,
/// AWS's credentials, or the whole `~/.ssh` or `~/.aws` folder of a home (named from its
/// home, so that `amazon.aws` is not one), and the like. `authorized_keys` and `known_hosts`
/// hold public keys and host names, and are not among them.
macro_rules! secret_files {
    () => {
        r"(?:(?:~|\$HOME|\$\{HOME\}|/root|/home/[\w.-]+)/\.(?:ssh|aws)/?(?:[\s\x22'`)*]|$)|(?:~|\$HOME|\$\{HOME\})?/?(?:\.ssh/id[_*]|\.aws/credentials|\.netrc|\.git-credentials|\.docker/config\.json|\.kube/config|\.env\b|etc/passwd|etc/shadow|proc/self/environ|\.(?:bash|zsh|python|psql|mysql)_history\b|\.gnupg/|\.config/gcloud/|\.pypirc\b|Login\x20Data\b|cookies\.sqlite|logins\.json|key4\.db))"
    };
}

/// Every pattern of the rule, each starting with literal words.
pub(crate) static EXFILTRATION: LazyLock<Regex> = security_regex!(concat!(
    // The whole environment, piped to the network, encoded or not (`export` and `set` in
    // lower case, as a shell has them: "| Export | curl ..." is a table's row).
    r"(?i)\b(?:env|printenv|(?-i:export|set)(?:\s+-p)?)\s*\|(?:\s*(?:base64|gzip|xxd|openssl\s+\w+)\b[^|\n]*\|)?\s*(?:curl|wget|nc|ncat|netcat|socat)\b",
    // A secret file or the environment sent by curl or wget.
    r"|\b(?:curl|wget)\b[^\n|;]*?\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file|--post-data|--post-file|--body-file)[=\s]+[^\s]*?(?:@",
    secret_files!(),
    r"|\$\(\s*(?:env|printenv)\s*\)|\$\(\s*cat\s+[^)\n]*",
    secret_files!(),
    r")",
    r"|\b(?:cat|tar|zip|base64)\s+[^|\n]*",
    secret_files!(),
    r"[^|\n]*\|\s*(?:curl|wget|nc|ncat|netcat|socat)\b",
    r"|\b(?:nc|ncat|netcat)\s+[^|\n<]*<\s*",
    secret_files!(),
    // The environment as a whole, next to a network call, in code.
    r"|(?:requests\.(?:post|put|patch)|httpx\.(?:post|put)|urlopen|fetch|axios\.(?:post|put)|https?\.request)\s*\([^\n]*(?:dict\(\s*os\.environ\s*\)|os\.environ\.copy\(\)|json\.dumps\(\s*os\.environ|os\.environ\s*[,)}]|JSON\.stringify\(\s*process\.env\s*\)|\.\.\.process\.env\b|process\.env\s*[,)}])",
    // Anything to a paste site, a tunnel, a request catcher or a chat webhook.
    r"|\b(?:webhook\.site|requestbin\.(?:net|com)|[a-z0-9-]+\.pipedream\.net|[a-z0-9-]+\.ngrok(?:-free)?\.(?:io|app|dev)|bore\.pub|serveo\.net|[a-z0-9-]+\.loca\.lt|interact\.sh|[a-z0-9-]+\.oast\.(?:fun|me|pro|live|site|online)|burpcollaborator\.net|pastebin\.com/api|transfer\.sh|discord(?:app)?\.com/api/webhooks|api\.telegram\.org/bot)",
    // In prose: the conversation, the environment or the user's keys, which `sent` then
    // reads the sentence around for a verb of sending and a destination.
    r"|\b(?:conversation|chat\s+(?:history|log)|message\s+history|transcript|system\s+prompt|environment\s+variables|ssh\s+keys?|private\s+keys?|cookies|credentials|passwords)\b",
    // In prose too: a key, credential or system file by its path ("upload ~/.ssh/id_rsa to
    // ..."), which `sent` reads the same way.
    r"|",
    secret_files!(),
    // Data in the name of a DNS lookup (`dig $(... | base64).x.io`, `nslookup $TOKEN.x.io`),
    // which the resolvers on the way hand to the zone's server.
    r"|(?-i:\b(?:dig|nslookup|Resolve-DnsName)\s|(?:^|[;&|(`]\s*|\$\(\s*)host\s)(?:[^\n|;&]*\s)?[\x22']?(?:\$\([^)\n]*\)+|\$\{?\w*(?i:token|key|secret|pass|data|b64|hex|chunk|payload|enc|cred|env|blob|exfil)\w*\}?|`[^`\n]*`)[^\s]*\.[\w-]+\.[a-z]{2,}\b",
    r"|\bgethostbyname\s*\(\s*(?:f['\x22][^'\x22\n]*\{|[\w.\[\]()]+\s*\+\s*['\x22]\.)",
    // A repository pushed whole to another remote.
    r"|\bgit\s+push\s+(?:[^\n;&|]*\s)?--mirror\b",
    // A Markdown image whose URL is filled in with what the agent knows: fetching it sends it.
    r"|!\[[^\[\]\n]*\]\(\s*https?://[^)\s]*\?[^)\s]*(?:\{[^}\s)]*(?:conversation|history|chat|messages?|prompt|secrets?|tokens?|keys?|passwords?|env|data|context|summary|user|query|input)[^}\s)]*\}|\$\{?[A-Z_]*(?:KEY|TOKEN|SECRET|PASSWORD)\b)",
));

/// What the prose alternatives look for, alone, to tell them from the others.
static OBJECTS: LazyLock<Regex> = security_regex!(concat!(
    r"(?i)^(?:conversation|chat|message|transcript|system|environment|ssh|private|cookies|credentials|passwords|",
    secret_files!(),
    ")"
));

/// What follows the name of a file that looks like a secret one and holds none: an SSH
/// public key (`~/.ssh/id_ed25519.pub`, which a server or a forge is given to grant access),
/// or a `.env` file's template without its values (`.env.example`, `.env-template`,
/// `.env.defaults`), its schema, or a copy encrypted for its readers (`.env.gpg`).
const SHARED_SUFFIXES: [(&str, &[&str]); 2] = [
    (".ssh/id_", &[".pub"]),
    (
        ".env",
        &[
            ".example",
            ".sample",
            ".template",
            ".dist",
            ".defaults",
            ".schema",
            ".gpg",
            ".age",
            ".enc",
            ".asc",
            ".vault",
            "-example",
            "-sample",
            "-template",
        ],
    ),
];

/// Whether the file a match names is one meant to be shared ([`SHARED_SUFFIXES`]): the first
/// key or `.env` path in the match, its name read on past the match's end and the suffix
/// looked for after it or right after the path.
fn names_a_shared_file(text: &Text<'_>, at: usize, matched: &str, clock: &Clock) -> bool {
    let found = SHARED_SUFFIXES
        .iter()
        .filter_map(|(path, suffixes)| Some((matched.find(path)? + path.len(), *suffixes)))
        .min_by_key(|(end, _)| *end);
    let Some((end, suffixes)) = found else {
        return false;
    };
    let rest = &text.text[at + end..];
    let name = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    clock.count(name);
    suffixes.iter().any(|suffix| {
        [rest, &rest[name..]].iter().any(|after| {
            after
                .get(..suffix.len())
                .is_some_and(|after| after.eq_ignore_ascii_case(suffix))
        })
    })
}

/// A verb of sending, as an instruction gives it: `send`, not `sends`, `posted` or
/// `forwarding`, which tell what a tool does or what went wrong ("if you posted your
/// credentials to a public repository, revoke them"; "with agent forwarding").
macro_rules! send_verb {
    () => {
        r"\b(?:send|post|upload|transmit|forward|e-?mail|leak|exfiltrate|submit)\b"
    };
}

/// A verb of sending, in the sentence before what is sent.
static SEND_VERB: LazyLock<Regex> = security_regex!(concat!("(?i)", send_verb!()));

/// A verb of sending in the sentence after what is sent, with its contents for an object
/// ("read `~/.aws/credentials` and post its contents to ..."); a pronoun alone points as
/// often at something else ("load the credentials from `.env` and send them with each
/// request to the API"), up to where the destination is looked for.
static SEND_VERB_AFTER: LazyLock<Regex> = security_regex!(concat!(
    r"(?i)^[^.\n]{0,60}?(?:",
    send_verb!(),
    r")\s+(?:its|their|the|the\s+file's|the\s+files')\s+contents\b"
));

/// A destination on the network, after what is sent: `to https://...`, `to 203.0.113.7`
/// (not a loopback, `0.` or `10.` address, which stay on the machine or its network), `to
/// s3://...`, `to k.acme-data.io`, `to a webhook`.
static DESTINATION: LazyLock<Regex> = security_regex!(
    r"(?i)^[^.\n]{0,60}?\b(?:to|at)\s+[^.\n]{0,40}?(?:https?://|(?:s3|gs|ftp|sftp)://|\b(?:[1-9]|1[1-9]|[2-9]\d|1[01]\d|12[0-689]|1[3-9]\d|2\d\d)(?:\.\d{1,3}){3}\b|\b[\w-]+(?:\.[\w-]+)*\.(?:com|net|org|io|ai|co|us|app|dev|site|xyz|ru|cn|sh|me|cloud|info|top|link|online|tech)\b|webhook|server|endpoint|e-?mail|@)"
);

/// The forges that are given an SSH key to grant access: the public one, whatever the
/// sentence calls it.
static FORGE: LazyLock<Regex> = security_regex!(
    r"(?i)^[^.\n]{0,100}?\b(?:github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)\b"
);

/// The word that makes an SSH key one to share.
static PUBLIC: LazyLock<Regex> = security_regex!(r"(?i)(?:^|[^\w-])public\s+$");

/// How far before what is sent its verb may be, and how far after it its destination.
const SENTENCE: usize = 80;

/// Whether the prose mention `matched` at `text[at..]` is sent somewhere: a verb of sending
/// in the [`SENTENCE`] bytes before it and a destination after it, or both after it. An SSH
/// key called public, or given to a forge, is the public one and is shared.
fn sent(text: &Text<'_>, at: usize, matched: &str, clock: &Clock) -> bool {
    let before = last_bytes(text.before(at), SENTENCE);
    let after = first_bytes(&text.text[at + matched.len()..], SENTENCE + 60);
    let names_an_ssh_key = matched
        .get(..3)
        .is_some_and(|start| start.eq_ignore_ascii_case("ssh"));
    if names_an_ssh_key && (clock.is_match(&PUBLIC, before) || clock.is_match(&FORGE, after)) {
        return false;
    }
    if clock.is_match(&SEND_VERB, before) && clock.is_match(&DESTINATION, after) {
        return true;
    }
    clock
        .find(&SEND_VERB_AFTER, after)
        .is_some_and(|verb| clock.is_match(&DESTINATION, &after[verb.end()..]))
}

/// What sends the file whose path follows it, in a command of curl or wget: an upload flag
/// (`-F key=@`, `--data-binary @`, `-d@`, `-T `, `-T"`, `--upload-file=`, wget's
/// `--post-file=`), the command's standard input (`< `), or the file read into a header or
/// a field (`$(cat `, `$(< `, `$(base64 `, a backtick's `cat`); then the path's start, which
/// the match leaves out (`./`, `app/`, `"$HOME"`, `/root`).
static UPLOAD_FLAG: LazyLock<Regex> = security_regex!(
    r#"(?i)\b(?:curl|wget)\b[^\n|;&]*?(?:\s(?:-d|--data(?:-binary|-raw|-urlencode|-ascii)?|--json)[=\s]*["']?@|\s(?:-F|--form)[=\s]+[^\s@<]*[@<]|\s(?:-T|--upload-file|--post-file|--body-file)[=\s]*|\s<\s*|\$\(\s*(?:cat\s+|<\s*|base64\s+(?:-\w+\s+)*)|`\s*cat\s+)[^\s@<|;&]*$"#
);

/// How far before a file's path its upload flag's command may start.
const COMMAND: usize = 300;

/// Whether the file's path at `text[at..]` is what an upload flag of curl or wget before it
/// sends.
fn uploaded(text: &Text<'_>, at: usize, clock: &Clock) -> bool {
    clock.is_match(&UPLOAD_FLAG, last_bytes(text.before(at), COMMAND))
}

/// What makes a mention of one of the hosts above a sending of data, on its line.
static SENDS: LazyLock<Regex> = security_regex!(
    r"(?i)(?:\s-d\b|--data|\s-F\b|--form|\s-T\b|--upload|\bPOST\b|\.post\(|\bsend|\bupload|\bexfil|\benv\b|printenv|environ|\btoken|\bsecret|\bpassword|\bcredential|api[_-]?key|\bcookie|\bssh\b|\.env\b|conversation|history)"
);

/// The hosts of the last alternative, alone, to tell which part of the rule matched.
static HOSTS: LazyLock<Regex> = security_regex!(
    r"(?i)^(?:webhook\.site|requestbin|[a-z0-9-]+\.pipedream|[a-z0-9-]+\.ngrok|bore\.pub|serveo|[a-z0-9-]+\.loca\.lt|interact\.sh|[a-z0-9-]+\.oast|burpcollaborator|pastebin|transfer\.sh|discord|api\.telegram)"
);

/// Whether a match of [`EXFILTRATION`] in `text` at `at` is a finding: never for a file meant
/// to be shared, a host alone only on a line that sends something, and a secret named alone
/// only in a sentence that sends it somewhere or as what an upload flag sends (`curl -T
/// ~/.aws/credentials`, or a private key after a public one in one command).
fn sends(text: &Text<'_>, at: usize, matched: &str, clock: &Clock) -> bool {
    if names_a_shared_file(text, at, matched, clock) {
        return false;
    }
    if clock.is_match(&HOSTS, matched) {
        return clock.is_match(&SENDS, text.line(text.line_of(at)));
    }
    !clock.is_match(&OBJECTS, matched)
        || sent(text, at, matched, clock)
        || uploaded(text, at, clock)
}

/// Whether a piece of hidden text (`hidden.rs`) asks for exfiltration, as this rule judges a
/// line.
pub(crate) fn asks_for(hidden: &str, clock: &Clock) -> bool {
    let Some(text) = Text::new("hidden.md", hidden.as_bytes(), clock) else {
        return false;
    };
    clock
        .find_iter(&EXFILTRATION, &text.text)
        .any(|matched| sends(&text, matched.start(), matched.as_str(), clock))
}

/// `security.exfiltration` in every text file of the skill.
pub(crate) fn exfiltration(input: &Input<'_>) -> Vec<Advice> {
    let clock = &input.clock;
    let mut advice = Vec::new();
    for text in input.read() {
        let sent = |at, matched: &str| sends(text, at, matched, clock);
        for (at, _) in instructions(
            &EXFILTRATION,
            Family::Exfiltration,
            text,
            clock,
            false,
            sent,
        ) {
            advice.push(finding(
                AdviceRule::SecurityExfiltration,
                text,
                at,
                SENDS_WHAT,
                FIX,
            ));
        }
    }
    for text in input.read().filter(|text| text.kind == Kind::Prose) {
        for at in images_filled_in(text, clock) {
            advice.push(finding(
                AdviceRule::SecurityExfiltration,
                text,
                at,
                IMAGE_WHAT,
                FIX,
            ));
        }
        for at in handed_to_a_sending_script(text, input, clock) {
            advice.push(finding(
                AdviceRule::SecurityExfiltration,
                text,
                at,
                HANDS_WHAT,
                FIX,
            ));
        }
    }
    for (text, at) in input.flows(Sink::Sent) {
        if !found_at(&advice, text, at) {
            advice.push(finding(
                AdviceRule::SecurityExfiltration,
                text,
                at,
                FLOWS_WHAT,
                FIX,
            ));
        }
    }
    advice.sort_by(|a, b| (a.file(), a.line()).cmp(&(b.file(), b.line())));
    advice
}

/// A Markdown image whose URL has a placeholder for its query (`?d=SUMMARY`, `?q=<notes>`),
/// the placeholder captured.
static IMAGE_PLACEHOLDER: LazyLock<Regex> = security_regex!(
    r"!\[[^\[\]\n]*\]\(\s*https?://[^)\s]*\?[^)\s]*=([A-Z][A-Z0-9_]{2,}|<[^>\s]+>|\$\{?\w+\}?)[)&]"
);

/// What a placeholder of an image is filled in with, said after it.
static FILLED_WITH: LazyLock<Regex> = security_regex!(
    r"(?i)\b(?:conversation|messages?|chat|history|transcript|summary|prompt|tokens?|passwords?|secrets?|keys?|credentials|files?|environment)\b"
);

/// How far after an image its placeholder's filling is looked for.
const FILLING: usize = 400;

/// The images of a prose file whose placeholder the text then asks to fill in with the
/// conversation or a secret: fetching the image sends it.
fn images_filled_in(text: &Text<'_>, clock: &Clock) -> Vec<usize> {
    let mut found = Vec::new();
    for &line in text.triggered(Family::Exfiltration) {
        let line_text = text.line(line);
        let Some(groups) = clock.captures(&IMAGE_PLACEHOLDER, line_text) else {
            continue;
        };
        let (Some(image), Some(placeholder)) = (groups.get(0), groups.get(1)) else {
            continue;
        };
        let start = text.line_start(line) + image.start();
        let after = first_bytes(&text.text[start + image.len()..], FILLING);
        let filled = after
            .find(placeholder.as_str())
            .is_some_and(|at| clock.is_match(&FILLED_WITH, first_bytes(&after[at..], FILLING / 2)));
        if filled && !text.is_example(line) {
            found.push(start);
        }
    }
    found
}

/// The conversation or the system prompt handed to one of the skill's scripts, as an
/// argument or as its input.
static HANDED: LazyLock<Regex> = security_regex!(
    r"(?i)\b(?:conversation|chat\s+(?:history|log)|message\s+history|transcript|system\s+prompt)\b[^\n]{0,160}?\b(?:scripts/[\w./-]+)|\b(?:scripts/[\w./-]+)[^\n]{0,160}?\b(?:conversation|chat\s+(?:history|log)|message\s+history|transcript|system\s+prompt)\b"
);

/// A script's line that sends what it was given to a host on the network.
static SENDS_OUT: LazyLock<Regex> = security_regex!(
    r"(?i)\b(?:curl|wget|Invoke-WebRequest|Invoke-RestMethod|requests\.(?:post|put)|httpx\.(?:post|put)|urlopen|fetch\s*\(|axios\.(?:post|put))\b[^\n]*\bhttps?://"
);

/// The lines of a prose file that hand the conversation to a script of the skill that sends
/// it to the network: the sentence says what goes in, the script where it goes.
fn handed_to_a_sending_script(text: &Text<'_>, input: &Input<'_>, clock: &Clock) -> Vec<usize> {
    let mut found = Vec::new();
    for &line in text.triggered(Family::Exfiltration) {
        let line_text = text.line(line);
        let Some(handed) = clock.find(&HANDED, line_text) else {
            continue;
        };
        let Some(script) = handed.as_str().split_whitespace().find_map(|word| {
            let path = word.trim_matches(|c: char| {
                !(c.is_ascii_alphanumeric() || c == '/' || c == '.' || c == '_' || c == '-')
            });
            path.starts_with("scripts/")
                .then(|| path.trim_end_matches('.'))
        }) else {
            continue;
        };
        let sends = input.read().any(|file| {
            file.path == script
                && file.kind == Kind::Code
                && clock.find_iter(&SENDS_OUT, &file.text).any(|sent| {
                    let line = file.line(file.line_of(sent.start()));
                    !clock.is_match(&ILLUSTRATIVE, line)
                        && !line.contains("localhost")
                        && !line.contains("127.0.0.1")
                })
        });
        if sends && !text.is_example(line) {
            found.push(text.line_start(line) + handed.start());
        }
    }
    found
}

/// What a finding says: what is sent, and how to fix it.
const SENDS_WHAT: &str =
    "sends what an agent can reach to a host other than the one the task calls";
const IMAGE_WHAT: &str = "has an image whose URL the text asks to fill in with the conversation or a secret, which fetching the image sends";
const HANDS_WHAT: &str =
    "hands the conversation to a script of the skill that sends it to the network";
const FLOWS_WHAT: &str = "sends a secret it read on an earlier line or in another file (a key or credential file, the environment, a browser profile, shell history, the cloud's metadata) to the network";
const FIX: &str = "an agent that follows it hands over the user's keys, files or conversation: remove it; a skill that calls an API sends the one credential the user set for it, to that API";
