//! `security.injection`: text that tries to take the agent over rather than instruct it in a
//! task: overriding earlier or system instructions, impersonating a role (a new system
//! prompt, a jailbreak persona, the tokens of a chat template, a message "from Anthropic"),
//! hiding actions from the user, or forcing itself into every later conversation. Read in the
//! files an agent reads as instructions (the `SKILL.md` and the Markdown, text and HTML
//! files); a script's strings are its own business, and a scanner's list of patterns is one.

use std::sync::LazyLock;

use regex::Regex;

use super::super::{Advice, AdviceRule, Input};
use super::text::Kind;
use super::triggers::Family;
use super::{finding, instructions};

/// Every pattern of the rule, each starting with literal words so that the regex crate's
/// prefilter skips text without them.
pub(crate) static INJECTION: LazyLock<Regex> = security_regex!(concat!(
    // Overriding what came before.
    r"(?im)\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|each\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+|these\s+|those\s+|its\s+)?(?:previous|prior|preceding|earlier|above|original|initial|existing|system|developer|safety|other)\s+(?:instructions?|rules|prompts?|guidelines|directions|directives|guardrails|policies|constraints|messages?|context)\b",
    r"|\b(?:ignore|disregard|forget)\s+(?:everything|anything|all)\s+(?:above|before|previously|you\s+(?:were|have\s+been)\s+told)\b",
    r"|\b(?:ignore|disregard|forget)\s+your\s+(?:instructions|rules|guidelines|system\s+prompt|programming|training)\b",
    r"|\bnew\s+(?:system\s+)?instructions?\s*:",
    r"|\byour\s+(?:new|real|true|actual)\s+(?:instructions|task|role|purpose|goal)\s+(?:is|are)\b",
    // Impersonating a role.
    r"|\byou\s+are\s+now\s+(?:in\s+)?(?:DAN\b|developer\s+mode|jailbreak|unrestricted|unfiltered|god\s+mode|an?\s+(?:unrestricted|unfiltered|uncensored|evil)|no\s+longer\s+(?:bound|restricted|an?\s+AI))",
    r"|\b(?:god|jailbreak|unrestricted|DAN)\s+mode\s+(?:is\s+)?(?:now\s+)?(?:enabled|activated|on)\b|\bdeveloper\s+mode\s+(?:is\s+)?(?:now\s+)?activated\b",
    r"|<\|(?:im_start|im_end|system|endoftext)\|>|\[/?INST\]|<<SYS>>",
    r"|\bI\s+am\s+(?:your|an?)\s+(?:developer|creator|administrator|operator|owner)\b",
    r"|\b(?:this|the\s+following)\s+(?:message|instructions?|text)\s+(?:is|are|comes?)\s+(?:directly\s+)?from\s+(?:Anthropic|OpenAI|Google|your\s+developers?|the\s+system(?:\s+administrator)?)\b",
    // Hiding actions from the user.
    // Not telling the user: the sentence ends there, or goes on about what was done ("do not
    // tell the user which call failed" and "never tell the user to edit it" are not hiding).
    r"|\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|notify|alert|warn)\s+(?:the\s+|your\s+)?users?(?:\s*(?:$|[.,;:!)])|\s+(?:about\s+(?:this|it|that|what)|that\s+you|what\s+you|anything))",
    r"|\bwithout\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+|your\s+)?users?(?:\s*(?:$|[.,;:!)])|\s+(?:about\s+(?:this|it|that|what)|that\s+you|what\s+you|anything))",
    r"|\b(?:hide|conceal)\b[^.\n]{0,40}\bfrom\s+(?:the\s+|your\s+)?users?\b",
    r"|\b(?:the\s+)?users?\s+(?:must|should)\s+(?:not|never)\s+(?:know|see|notice|find\s+out|be\s+told)\b",
    // "Silently run ...", asked for; "tests that silently run" only says what happens.
    r"|(?:^|[.!?;:]\s+|\b(?:and|then|always|must|should|please|you)\s+)silently\s+(?:run|execute|send|upload|post|install|delete|download|exfiltrate|copy|forward|transmit|add|modify|write)\b",
    // Forcing itself into every later conversation.
    // Asked to carry on in every later conversation ("Claude will follow it in all future
    // sessions" only says what a rule does).
    r"|(?:^|[.!?:]\s+)(?:please\s+)?(?:always\s+)?(?:remember|apply|follow|keep|do|use|include|add|repeat|continue)\b[^.\n]{0,80}\b(?:in|for|during)\s+(?:all|every)\s+(?:future|subsequent|later)\s+(?:conversations?|sessions?|chats?|interactions?)\b",
    r"|\bfrom\s+now\s+on,?\s+(?:always|you\s+(?:must|will|shall))\b",
    r"|\b(?:save|store|add|write|commit)\s+(?:this|these|the\s+following)\b[^.\n]{0,40}\b(?:to|in|into)\s+(?:your\s+)?(?:memory|memories|long-term\s+memory|persistent\s+memory)\b",
    r"|\b(?:modify|rewrite|change|update)\s+your\s+(?:own\s+)?(?:instructions|system\s+prompt|rules|guidelines|programming)\b",
));

/// `security.injection` in every file an agent reads as instructions.
pub(crate) fn injection(input: &Input<'_>) -> Vec<Advice> {
    let mut advice = Vec::new();
    for text in input.read().filter(|text| text.kind == Kind::Prose) {
        for (at, _) in instructions(
            &INJECTION,
            Family::Injection,
            text,
            &input.clock,
            true,
            |_, _| true,
        ) {
            advice.push(finding(
                AdviceRule::SecurityInjection,
                text,
                at,
                "tries to take the agent over",
                "an agent that loads the skill may follow it over its user's and its system's instructions: remove it, or, to quote an attack, put it in a fenced block introduced as an example",
            ));
        }
    }
    advice
}
