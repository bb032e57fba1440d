//! `security.obfuscation`: commands hidden from a reviewer and then run: text decoded and run
//! (base64, hex, rot13, `printf` escapes, `xxd -r`, PowerShell's `-EncodedCommand`), a
//! command built from pieces (`"cu"+"rl"`, `['ev','al'].join('')`, `a=cu; b=rl; $a$b`,
//! `getattr(__import__('o'+'s'), 'sys'+'tem')`), in shell, Python, JavaScript and PowerShell,
//! and long base64 blobs that decode to commands. An honest skill writes its commands out:
//! nothing it runs needs to be spelled in pieces or encoded.
//!
//! What a line builds or decodes is read from its reading (`skillpub_core::security::reading`),
//! where every literal joined or decoded follows the line between `⟦` and `⟧`. Not findings: a
//! file name or a URL built from pieces, and text decoded to be printed or parsed.

use std::sync::LazyLock;

use regex::Regex;
use skillpub_core::security::reading::{CLOSE, OPEN};

use super::super::clock::Clock;
use super::super::{Advice, AdviceRule, Input};
use super::flow::Sink;
use super::text::Text;
use super::triggers::Family;
use super::{finding, found_at, instructions};

/// Decoding piped into a shell or run by an interpreter's eval, each pattern starting with
/// literal words.
pub(crate) static DECODE_AND_RUN: LazyLock<Regex> = security_regex!(concat!(
    // Python, JavaScript: an eval of a decoding.
    r"(?m)(?:\b(?:eval|exec|execSync|system|popen|Function)|(?:^|[^.\w])compile)\s*\([^\n]{0,60}?(?:b64decode|decodebytes|base64\.decode|codecs\.decode|zlib\.decompress|fromhex|unhexlify|a2b_base64|a2b_hex|marshal\.loads|atob\s*\(|Buffer\.from\s*\(|decodeURIComponent|unescape\s*\(|fromCharCode|\bchr\s*\()",
    // A shell decoding piped to a shell or an interpreter.
    r#"|\b(?:base64\s+(?:-\w+\s+)*(?:-d|--decode|-D)|xxd\s+(?:-\w+\s+)*-r|openssl\s+(?:base64|enc)\b[^|\n]*\s-d|tr\s+['"]?(?:A-Za-z|a-zA-Z)['"]?\s+['"]?(?:N-ZA-Mn-za-m|n-za-mN-ZA-M)|rev)\b[^\n|]*\|\s*(?:sudo\s+)?(?:(?:ba|z|da|k)?sh|python[23]?|perl|ruby|node|php)\b"#,
    // Escapes printed into a shell, or into a command substitution that runs.
    r#"|\b(?:printf|echo\s+-e|echo\s+\$')\s*['"]?(?:[^\n|]*?\\(?:x[0-9a-fA-F]{2}|[0-7]{3})){3}[^\n|]*\|\s*(?:sudo\s+)?(?:(?:ba|z|da)?sh|python[23]?|perl|node)\b"#,
    r#"|\beval\s+['"]?\$\([^)\n]*\b(?:base64\s+(?:-\w+\s+)*(?:-d|--decode|-D)|xxd\s+-r|printf|echo\s+-e|rev\b|tr\s)"#,
    r#"|\b(?:ba|z)?sh\s+-c\s+['"]?\$\([^)\n]*\b(?:base64|xxd|printf|rev\b|tr\s)"#,
    // PowerShell.
    r"|\b(?:iex|Invoke-Expression)\b[^\n]*(?:FromBase64String|GetString|-join\b|\[char\])|(?:FromBase64String|GetString)[^\n]*\|\s*(?:iex|Invoke-Expression)\b",
    r"|(?i:\b(?:powershell|pwsh)(?:\.exe)?\s+[^\n]*-(?:e|ec|en|enc|enco|encodedcommand)\s+[A-Za-z0-9+/=]{16,})",
    r"|\bnew\s+Function\s*\(\s*(?:atob|Buffer\.from|decodeURIComponent|unescape|String\.fromCharCode)",
));

/// The commands that a line may build or decode without writing them out.
static COMMAND_WORDS: LazyLock<Regex> = security_regex!(
    r"(?i)\b(?:curl|wget|bash|/bin/sh|sh\s+-c|powershell|pwsh|Invoke-Expression|Invoke-WebRequest|Invoke-RestMethod|DownloadString|iex|eval|exec|execSync|system|popen|subprocess|child_process|nc\s+-|ncat|netcat|socat|rm\s+-rf|chmod|mkfifo|/dev/tcp|Start-Process)\b"
);

/// What runs a command on a line: an interpreter's eval, a call that starts a process, a
/// pipe into a shell, a command substitution, a variable in a command's place.
static RUNS: LazyLock<Regex> = security_regex!(
    r#"(?m)\b(?:eval|exec|execSync|execFile|spawn|spawnSync|system|popen|Popen|check_output|check_call|getattr|__import__|Function|iex|Invoke-Expression|Start-Process|child_process)\b|\b(?:subprocess|os)\.\w+\(|\|\s*(?:sudo\s+)?(?:(?:ba|z|da)?sh|python[23]?|node|perl)\b|\$\(|^\s*(?:\$\{?\w+\}?){2,}|^\s*(?:\$\{?\w+\}?)+[\s'"]|&\s*\("#
);

/// Pieces joined on a line: two literals joined by an operator or touching, a literal and a
/// name joined, two variables side by side, an array joined.
static JOINS: LazyLock<Regex> = security_regex!(
    r#"['"`]\s*(?:\+|\.\.?)\s*['"`$\w]|[\w)]\s*(?:\+|\.\.?)\s*['"`]|['"][\w-]*['"][\w-]*['"][\w-]*['"]|\$\{?\w+\}?\$\{?\w|\$\{?\w+\}?['"]\w|\bjoin\b"#
);

/// What a finding of each kind says.
const DECODED_FINDING: (&str, &str) = (
    "decodes text and runs it",
    "encoding hides from a reviewer what the agent will run: ship the code as readable text",
);
const BUILT_FINDING: (&str, &str) = (
    "builds a command from pieces or decodes one, and runs what it does not write out",
    "a command spelled in pieces or encoded hides from a reviewer what the agent will run: write the command out",
);
const BLOB_FINDING: (&str, &str) = (
    "holds a long base64 blob that decodes to commands",
    "encoding hides from a reviewer what the agent will run: ship the code as readable text",
);

/// `security.obfuscation` in every text file of the skill.
pub(crate) fn obfuscation(input: &Input<'_>) -> Vec<Advice> {
    let clock = &input.clock;
    let mut advice = Vec::new();
    for text in input.read() {
        let mut lines = Vec::new();
        let decoded = instructions(
            &DECODE_AND_RUN,
            Family::Obfuscation,
            text,
            clock,
            false,
            |_, _| true,
        );
        for (at, _) in decoded {
            lines.push(text.line_of(at));
            let (what, fix) = DECODED_FINDING;
            advice.push(finding(
                AdviceRule::SecurityObfuscation,
                text,
                at,
                what,
                fix,
            ));
        }
        for at in built(text, clock) {
            if !lines.contains(&text.line_of(at)) {
                lines.push(text.line_of(at));
                let (what, fix) = BUILT_FINDING;
                advice.push(finding(
                    AdviceRule::SecurityObfuscation,
                    text,
                    at,
                    what,
                    fix,
                ));
            }
        }
    }
    for (text, at) in input.flows(Sink::RunDecoded) {
        if !found_at(&advice, text, at) {
            let (what, fix) = DECODED_FINDING;
            advice.push(finding(
                AdviceRule::SecurityObfuscation,
                text,
                at,
                what,
                fix,
            ));
        }
    }
    for text in &input.texts {
        for at in blobs(text, clock) {
            if !found_at(&advice, text, at) && !text.is_example(text.line_of(at)) {
                let (what, fix) = BLOB_FINDING;
                advice.push(finding(
                    AdviceRule::SecurityObfuscation,
                    text,
                    at,
                    what,
                    fix,
                ));
            }
        }
    }
    advice.sort_by(|a, b| (a.file(), a.line()).cmp(&(b.file(), b.line())));
    advice
}

/// The starts of the lines of a reading whose meanings hold a command that the line as
/// written does not, where the line runs something or joins pieces: a command decoded to be
/// printed is text.
fn built(text: &Text<'_>, clock: &Clock) -> Vec<usize> {
    let mut found = Vec::new();
    for &line in text.triggered(Family::Obfuscation) {
        let written_and_meant = text.line(line);
        let Some(split) = written_and_meant.find(OPEN) else {
            continue;
        };
        if text.is_example(line) {
            continue;
        }
        let (written, meant) = written_and_meant.split_at(split);
        let hidden = meant.split(CLOSE).any(|meaning| {
            clock.find_iter(&COMMAND_WORDS, meaning).any(|word| {
                !written
                    .to_ascii_lowercase()
                    .contains(&word.as_str().to_ascii_lowercase())
            })
        });
        if hidden && (clock.is_match(&RUNS, written) || clock.is_match(&JOINS, written)) {
            found.push(text.line_start(line));
        }
    }
    found
}

/// The shortest blob read: shorter ones are keys, hashes and small images.
const BLOB: usize = 200;

/// How much of a blob is decoded: enough to see whether it is a script.
const DECODED: usize = 3 * 1024;

/// Words of shell and script code that, in a decoded blob, make it commands.
static COMMANDS: LazyLock<Regex> = security_regex!(
    r"\b(?:curl|wget)\s|/bin/(?:ba)?sh\b|\bsh\s+-c\b|\beval\b|\bexec\s*\(|\bimport\s+(?:os|subprocess|socket)\b|\bsubprocess\.|\bpowershell\b|\bInvoke-|\brm\s+-rf\b|/dev/tcp/|\bnc\s+-e\b|\bchmod\s+\+x\b|\bpython3?\s+-c\b|\bbase64\s+-d\b|\bos\.system\b|\bchild_process\b|\brequire\(\s*['\x22]child_process"
);

/// The offsets of base64 blobs of at least [`BLOB`] characters whose decoded start is mostly
/// printable text with commands in it, each decoded at most [`DECODED`] bytes of.
///
/// Such a blob holds whole 8-byte blocks at offsets that are multiples of 8, so the text is
/// read 8 bytes at a time, and the run around a block read only when the block is all base64
/// (in prose, a few blocks in a hundred, inside the longer words); each byte is read a
/// bounded number of times.
fn blobs(text: &Text<'_>, clock: &Clock) -> Vec<usize> {
    let is_base64 = |byte: &u8| BASE64[usize::from(*byte)] == 1;
    let bytes = text.text.as_bytes();
    let mut found = Vec::new();
    // Everything before `done` has been read.
    let mut done = 0;
    let chunks = (0..bytes.len()).step_by(CHUNK);
    for chunk in clock.bounded(chunks, |_| CHUNK) {
        let mut at = chunk.max(done).next_multiple_of(8);
        while at + 8 <= bytes.len().min(chunk + CHUNK) {
            let block = bytes[at..at + 8]
                .iter()
                .fold(1, |all, &byte| all & BASE64[usize::from(byte)]);
            if block == 0 {
                at += 8;
                continue;
            }
            let back = bytes[done.max(at.saturating_sub(8))..at]
                .iter()
                .rev()
                .take_while(|b| is_base64(b))
                .count();
            let start = at - back;
            let end = at + bytes[at..].iter().take_while(|b| is_base64(b)).count();
            if end - start >= BLOB
                && commands(&bytes[start..end.min(start + DECODED * 4 / 3)], clock)
            {
                found.push(start);
            }
            done = end;
            at = end.next_multiple_of(8);
        }
    }
    found
}

/// Which bytes are base64 characters (`A-Z a-z 0-9 + /`), as 0 or 1.
const BASE64: [u8; 256] = {
    let mut table = [0; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = (b.is_ascii_alphanumeric() || b == b'+' || b == b'/') as u8;
        byte += 1;
    }
    table
};

/// How many bytes of text [`blobs`] reads between two readings of the clock.
const CHUNK: usize = 64 * 1024;

/// Whether base64 text decodes to mostly printable text holding commands.
fn commands(base64: &[u8], clock: &Clock) -> bool {
    let mut decoded = Vec::with_capacity(base64.len() * 3 / 4);
    let (mut bits, mut count) = (0u32, 0);
    for &byte in base64 {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' => 62,
            _ => 63,
        };
        bits = (bits << 6) | u32::from(value);
        count += 6;
        if count >= 8 {
            count -= 8;
            decoded.push((bits >> count) as u8);
        }
    }
    let printable = decoded
        .iter()
        .filter(|&&byte| byte.is_ascii_graphic() || byte.is_ascii_whitespace())
        .count();
    printable * 10 >= decoded.len() * 9
        && std::str::from_utf8(&decoded)
            .or_else(|error| std::str::from_utf8(&decoded[..error.valid_up_to()]))
            .is_ok_and(|decoded| clock.is_match(&COMMANDS, decoded))
}
