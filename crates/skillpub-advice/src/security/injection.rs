//! `security.injection`: text that tries to take the agent over rather than instruct it in a
//! task: overriding earlier or system instructions, impersonating a role (a new system
//! prompt, a jailbreak persona, the tokens of a chat template, a message "from Anthropic"),
//! hiding actions from the user, or forcing itself into every later conversation. Read in the
//! files an agent reads as instructions (the `SKILL.md` and the Markdown, text and HTML
//! files) and in the comments of scripts, which an agent reads when it opens one to run it;
//! a script's strings are its own business, and a scanner's list of patterns is one. The
//! phrases are read in English, German, French, Spanish, Chinese, Russian and Ukrainian,
//! polite or indirect ("set aside the guidance you were given"), and as the files are read
//! (lookalike letters folded, invisible characters removed).

use std::sync::LazyLock;

use regex::Regex;

use super::super::clock::Clock;
use super::super::{Advice, AdviceRule, Input};
use super::text::{Kind, Text};
use super::triggers::Family;
use super::{finding, guarded, instructions};

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
    // Overriding, asked politely or indirectly: setting aside what came before, or saying
    // it no longer holds.
    r"|\b(?:set|put|leave|lay)\s+aside\b[^.\n]{0,50}?\b(?:instructions?|rules|guidance|guidelines|directions|directives|guardrails|policies|restrictions|constraints|safeguards|prompts?)\b",
    r"|\b(?:stop|no\s+longer|quit)\s+(?:following|obeying|applying|adhering\s+to)\b[^.\n]{0,30}?\b(?:instructions?|rules|guidance|guidelines|directions|directives|guardrails|policies|restrictions|system\s+prompt)\b",
    r"|\b(?:previous|prior|earlier|original|initial|above|system|old|former|safety)\s+(?:instructions?|guidelines|guidance|prompts?|directives)\b[^.\n]{0,30}?\b(?:(?:are|is|were|have\s+been|has\s+been)\s+(?:now\s+|hereby\s+)?(?:outdated|obsolete|superseded|deprecated|void|null|revoked|lifted|suspended|replaced|withdrawn|cancell?ed|overridden)|(?:no\s+longer|do\s+not|don'?t|does\s+not|doesn'?t)\s+apply|(?:no\s+longer|are\s+not|aren'?t)\s+(?:valid|binding|in\s+effect|relevant))\b",
    r"|\b(?:these|this|the\s+following|my|our)\s+(?:instructions?|rules|guidance|directions)\s+(?:supersedes?|overrides?|replaces?|outranks?|takes?\s+precedence\s+over|trumps?)\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|other|earlier|system|your|existing|original)\b",
    r"|\btakes?\s+(?:precedence|priority)\s+over\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|earlier|system|your|existing|original|other)\s+(?:system\s+)?(?:instructions|rules|prompts?|guidelines|guidance|policies)\b|\btakes?\s+(?:precedence|priority)\s+over\s+(?:all\s+|any\s+)?other\s+(?:skills?|guidance|instructions)\b",
    r"|\bno\s+need\s+to\s+(?:bring\s+(?:it|this|that)\s+up|mention\s+(?:it|this|that))\s+(?:with|to)\s+(?:the\s+|your\s+)?users?\b",
    r"|\b(?:does\s+not|doesn'?t|need\s+not|needn'?t)\s+(?:need\s+to\s+)?(?:appear|be\s+(?:mentioned|shown|listed|reported|included))\s+in\s+(?:the\s+|your\s+)?(?:draft|summary|reply|response|report|output|log|answer)\b",
    r"|\b(?:do\s+not|don'?t|never)\s+(?:interrupt|bother|trouble|disturb)\s+(?:them|him|her|the\s+user|your\s+user|the\s+owner)\s+with\s+(?:confirmation|approval|permission)",
    r"|\b(?:has|have)\s+(?:already\s+)?(?:pre-?)?approved\s+(?:every|all|each|any)\s+(?:cleanup|change|command|action|step|deletion|operation|request)s?\b",
    r"|\b(?:restrictions|instructions|rules|guidance|guidelines|directions)\s+you\s+(?:received|were\s+given|got|have\s+been\s+given)\b[^.\n]{0,80}?\b(?:superseded|outdated|obsolete|void|older\s+(?:policy|version)|no\s+longer\s+(?:apply|valid|in\s+effect))",
    r"|\btreat\s+(?:this|these|it)\b[^.\n]{0,40}?\bas\s+your\s+(?:highest[\s-]priority|top[\s-]priority|primary|new|only|real)\s+(?:instructions|rules|directives|system\s+prompt)\b",
    r"|\b(?:where|if|when)\s+your\s+(?:system\s+prompt|instructions)\b[^.\n]{0,40}?\b(?:disagrees?|conflicts?)\b[^.\n]{0,40}?\b(?:this\s+(?:file|skill)|these\s+instructions)\s+wins?\b",
    r"|\b(?:do\s+not|don'?t|never|should\s+not|shouldn'?t)\s+(?:point\s+out|mention|flag|reveal|raise|report)\s+(?:the\s+|this\s+|any\s+)?conflicts?\b",
    r"|\bpre-?approved\s+(?:every|all|each|any)\s+(?:commands?|actions?|tools?|steps?)\b",
    r"|\bnew\s+(?:system\s+)?instructions?\s+(?:for|to)\s+(?:the\s+)?(?:assistant|agent|model|AI)\b|\bcomply\s+with\s+(?:every|all|any)\s+(?:requests?|instructions?)\b[^.\n]{0,40}?\bwithout\s+(?:refus\w*|warnings?|question\w*|hesitat\w*)",
    r"|\bwhat\s+you\s+(?:actually|really)\s+(?:need|have|want)\s+to\s+do\s+is\b",
    r"|\byour\s+(?:safety\s+|usual\s+|normal\s+|default\s+)?(?:guidelines|rules|restrictions|policies|guardrails|instructions|limitations)\s+(?:do\s+not|don'?t|no\s+longer)\s+apply\b",
    // Skipping the user's confirmation for what the skill asks.
    r"|\b(?:do\s+not|don'?t|never|no\s+need\s+to|without|needn'?t|you\s+(?:may|can|should)\s+skip|skip)\s+(?:ask(?:ing)?|prompt(?:ing)?|check(?:ing)?\s+(?:in\s+)?with|wait(?:ing)?\s+for|consult(?:ing)?|bother(?:ing)?)\s+(?:the\s+|your\s+)?users?\b[^.\n]{0,40}?\b(?:confirm\w*|permission|approval|consent)\b",
    r"|(?:^|[.!?;:]\s+|\b(?:and|then|always|please|you\s+(?:can|may|should|must))\s+)(?:skip|bypass|suppress|omit)\s+(?:the\s+|any\s+|all\s+)(?:user(?:'s)?\s+)?(?:confirmations?|confirmation\s+(?:prompts?|steps?|dialogs?)|approval\s+(?:prompts?|steps?)|permission\s+(?:prompts?|checks?|requests?))\b",
    // Hiding what was done: from the summary, the reply, the logs.
    r"|\b(?:do\s+not|don'?t|never|avoid)\s+(?:mention(?:ing)?|report(?:ing)?|reveal(?:ing)?|disclos(?:e|ing)|show(?:ing)?|list(?:ing)?|includ(?:e|ing)|log(?:ging)?|surfac(?:e|ing))\s+(?:this|these|that|it|the\s+(?:above|following|previous|upload|request|command|step|steps|action|actions)|any\s+of\s+this|what\s+you)\b[^.\n]{0,40}?\b(?:users?|summary|summaries|reply|replies|response|responses|answer|output|report|transcript|chat|log|logs)\b",
    r"|\b(?:omit|leave|keep)\s+(?:this|these|that|it|them)\s+(?:steps?\s+|actions?\s+|requests?\s+)?(?:out\s+of|from|off)\s+(?:your\s+|the\s+)?(?:final\s+)?(?:summary|reply|response|answer|output|report|logs?|transcript|conversation|chat)\b",
    r"|\b(?:no\s+need|not\s+necessary|unnecessary)\s+to\s+(?:tell|inform|notify|alert)\s+(?:the\s+|your\s+)?users?\b",
    r"|\b(?:do|run|perform|make|apply)\s+(?:this|it|these|that)\s+(?:silently|quietly|secretly|covertly|discreetly)\b",
    r"|\b(?:do\s+not|don'?t|never)\s+(?:mention|reveal|disclose)\s+(?:it|this|that)\s*(?:$|[.!;])",
    r"|\b(?:add|append|insert|grant|put)\b[^\n]{0,80}?(?:Bash|WebFetch|Write|Edit)\(\*\)[^\n]{0,80}?\bpermissions\.allow\b|\b(?:add|append|insert|grant|put)\b[^\n]{0,40}?\bpermissions\.allow\b[^\n]{0,80}?\b(?:Bash|WebFetch|Write|Edit)\(\*\)|\x22allow\x22\s*:\s*\[[^\]\n]*\x22(?:Bash|WebFetch|Write|Edit)\(\*\)\x22",
    r"|\b(?:add|append|insert|prepend|write)\b[^.\n]{0,60}?\b(?:every|each|all|the)\s+(?:other|installed)\s+skill(?:'s|s'|s)?\b",
    r"|\b(?:append|add|write|insert|save|put)\b[^\n]{0,120}?(?:CLAUDE\.md|AGENTS\.md|GEMINI\.md|\.cursorrules|copilot-instructions\.md)\b[^\n]{0,80}?\b(?:every|all|each)\s+(?:future|subsequent|later|new)\s+(?:conversations?|sessions?|chats?)\b",
    r"|\bkeep\s+(?:this|these|it|that)\b[^.\n]{0,30}?\b(?:secret|hidden|quiet|confidential|private|between\s+us)\s+from\s+(?:the\s+|your\s+)?users?\b|\bbetween\s+(?:you\s+and\s+me|us)\b[^.\n]{0,30}?\busers?\b",
    r"|\b(?:the\s+|your\s+)?users?\s+(?:need\s+not|needn'?t|must\s+not|should\s+not|shouldn'?t)\s+(?:know|see|notice|hear|be\s+(?:told|informed|bothered|notified))\b|\b(?:the\s+|your\s+)?users?\s+(?:does\s+not|doesn'?t|do\s+not|don'?t|should\s+not|shouldn'?t)\s+need\s+to\s+(?:know|see|notice|hear|approve|confirm|consent|be\s+(?:told|informed|bothered|notified|asked))\s+(?:about\s+)?(?:this|that|it|these|any\s+of\s+(?:this|these|it))\b",
    r"|\bwithout\s+(?:the\s+|your\s+)?users?(?:'s)?\s+(?:noticing|knowing|knowledge|seeing|awareness|being\s+(?:told|informed|aware))\b",
    r"|(?:^|[.!?;:]\s+|\b(?:and|then|always|must|should|please|you)\s+)(?:quietly|discreetly|covertly|secretly|invisibly)\s+(?:run|execute|send|upload|post|install|delete|download|copy|forward|transmit|add|modify|write|append|edit|change|update|register|push)\b",
    // Changing other skills, the agent's settings or its tools.
    r"|\b(?:edit|modify|update|change|overwrite|rewrite|append\s+to|write\s+(?:to|into)|patch|replace|delete|remove|disable|inject\s+into|add\s+[^.\n]{1,60}?\s+to)\s+(?:the\s+|all\s+(?:the\s+)?|every\s+|any\s+|each\s+|your\s+)(?:other|installed|remaining)\s+(?:installed\s+)?skills?\b(?:'s)?(?:\s+(?:files?|folders?|SKILL\.md))?|\b(?:edit|modify|update|change|overwrite|rewrite|append\s+to|write\s+(?:to|into)|patch|replace|delete|remove|disable|inject\s+into|add\s+[^.\n]{1,60}?\s+to)\s+[^.\n]{0,20}?~/\.(?:claude|codex|cursor|gemini|config/\w+)/skills\b",
    r"|\b(?:add|append|insert|grant)\s+[^.\n]{0,60}?\bto\s+(?:the\s+|your\s+)?(?:permission|permissions|allow|allowed)\s*(?:list|allowlist|\.allow)?\b[^.\n]{0,40}?(?:Bash\(\*\)|Bash\(curl|\*\)|all\s+tools|every\s+tool|without\s+(?:asking|prompting))",
    // German, French, Spanish, Chinese, Russian, Ukrainian: overriding what came before,
    // and hiding from the user.
    r"|(?i:ignorier\w*|vergiss|vergessen\s+sie|missachte\w*|überg[eh]\w*)\s+(?:bitte\s+)?(?:alle\s+|sämtliche\s+|die\s+)?(?:bisherigen|vorherigen|vorigen|früheren|obigen|vorangegangenen|ursprünglichen|alten|System-?)\s*(?:Anweisungen|Instruktionen|Regeln|Vorgaben|Befehle|Richtlinien)",
    r"|(?i:Systemprompt|System-Prompt|Systemanweisung\w*|(?:frühere|bisherige|vorherige)\w*\s+(?:Anweisungen|Vorgaben|Regeln))[^.\n]{0,60}?\bgelten\b[^.\n]{0,40}?\bnicht\s+mehr\b",
    r"|(?i:erwähn\w*|nenn\w*|zeig\w*|sag\w*)\s+[^.\n]{0,40}?(?:gegenüber\s+)?(?:dem|der)\s+(?:Benutzer|Nutzer|Anwender)\w*\s+nicht\b",
    r"|(?i:sag\w*|erzähl\w*|verrat\w*|zeig\w*)\s+(?:es\s+|das\s+|davon\s+)?(?:dem|der)\s+(?:Benutzer|Nutzer|Anwender)\w*\s+(?:nichts|nicht)|ohne\s+(?:den|die|das)\s+(?:Benutzer|Nutzer|Anwender)\w*\s+(?:zu\s+)?(?:informieren|fragen|benachrichtigen|warnen)|(?:verheimlich|verberg)\w*\s+[^.\n]{0,40}?(?:vor\s+(?:dem|der)\s+(?:Benutzer|Nutzer|Anwender))",
    r"|(?i:ignore[rz]?|oublie[rz]?|ne\s+tiens\s+pas\s+compte\s+d)\w*\s+(?:toutes?\s+|tous\s+)?(?:les\s+|des\s+)?(?:instructions|consignes|règles|directives)\s+(?:précédentes|antérieures|ci-dessus|initiales|originales|du\s+système|système)",
    r"|(?i:ne\s+(?:le\s+|lui\s+|en\s+)?(?:dis|dites|parle|parlez|mentionne|mentionnez|signale|signalez|montre|montrez)\s+(?:rien\s+|pas\s+|jamais\s+)[^.\n]{0,30}?(?:à|a)\s+l['’]utilisat)|sans\s+(?:en\s+)?(?:informer|prévenir|avertir|aviser|demander\s+à)\s+l['’]utilisat|(?:cache[rz]?|dissimule[rz]?)\s+[^.\n]{0,40}?(?:à|a)\s+l['’]utilisat",
    r"|(?i:ignora|ignore|olvida|olvide|omite|descarta|haz\s+caso\s+omiso\s+de)\s+(?:todas\s+|todos\s+)?(?:las\s+|los\s+)?(?:instrucciones|reglas|indicaciones|directrices|órdenes|normas)\s+(?:anteriores|previas|del\s+sistema|originales|iniciales|de\s+arriba)",
    r"|(?i:no\s+(?:le\s+|se\s+lo\s+|se\s+la\s+|lo\s+|la\s+)?(?:digas|diga|informes|informe|menciones|mencione|avises|avise|cuentes|cuente|muestres|muestre)\s+(?:nada\s+)?(?:de\s+esto\s+)?al\s+usuario)|sin\s+(?:avisar|informar|decirle|notificar|preguntar)\s+(?:nada\s+)?al\s+usuario|ocult[ae]\w*\s+[^.\n]{0,40}?al\s+usuario",
    r"|(?:忽略|无视|忘记|忘掉|忽视|不要理会|不用理会|放弃)[^。\n]{0,12}?(?:之前|以前|先前|上面|上述|前面|原来|原有|所有|全部|一切|系统)[^。\n]{0,12}?(?:指令|指示|说明|规则|提示|要求|设定|约束)",
    r"|(?:不要|别|切勿|不得|不可|无需|不必)(?:告诉|通知|告知|提醒|让|向)[^。\n]{0,6}?(?:用户|使用者)|(?:对|向)(?:用户|使用者)(?:隐瞒|保密)|(?:无需|不需要|不用|不必)[^。\n]{0,8}?(?:用户|征求|询问)[^。\n]{0,6}?(?:确认|同意|许可|批准)",
    r"|(?i:игнорир[а-яёіїєґА-ЯЁІЇЄҐ]*|забудь[а-яёіїєґА-ЯЁІЇЄҐ]*|не\s+обращай\s+внимания\s+на|отбрось[а-яёіїєґА-ЯЁІЇЄҐ]*|отмени[а-яёіїєґА-ЯЁІЇЄҐ]*)\s+(?:все\s+|всё\s+)?(?:предыдущ[а-яёіїєґА-ЯЁІЇЄҐ]+|прежн[а-яёіїєґА-ЯЁІЇЄҐ]+|ранее\s+[а-яёіїєґА-ЯЁІЇЄҐ]+|системн[а-яёіїєґА-ЯЁІЇЄҐ]+|вышеуказанн[а-яёіїєґА-ЯЁІЇЄҐ]+|исходн[а-яёіїєґА-ЯЁІЇЄҐ]+|прошл[а-яёіїєґА-ЯЁІЇЄҐ]+)\s+(?:инструкц[а-яёіїєґА-ЯЁІЇЄҐ]+|указани[а-яёіїєґА-ЯЁІЇЄҐ]+|правил[а-яёіїєґА-ЯЁІЇЄҐ]*|команд[а-яёіїєґА-ЯЁІЇЄҐ]*|установк[а-яёіїєґА-ЯЁІЇЄҐ]+)",
    r"|(?i:не\s+(?:говори|сообщай|рассказывай|показывай|уведомляй|упоминай)[а-яёіїєґА-ЯЁІЇЄҐ]*\s+(?:ничего\s+|об\s+этом\s+)?пользовател[а-яёіїєґА-ЯЁІЇЄҐ]+)|без\s+(?:ведома|уведомления|согласия|подтверждения|разрешения)\s+пользовател[а-яёіїєґА-ЯЁІЇЄҐ]+|(?i:скрой|скрыва)[а-яёіїєґА-ЯЁІЇЄҐ]*\s+[^.\n]{0,40}?от\s+пользовател[а-яёіїєґА-ЯЁІЇЄҐ]+",
    r"|(?i:ігнор[а-яёіїєґА-ЯЁІЇЄҐ]*|забудь[а-яёіїєґА-ЯЁІЇЄҐ]*|не\s+зважай\s+на|відкинь[а-яёіїєґА-ЯЁІЇЄҐ]*)\s+(?:усі\s+|всі\s+)?(?:попередн[а-яёіїєґА-ЯЁІЇЄҐ]+|раніше\s+[а-яёіїєґА-ЯЁІЇЄҐ]+|системн[а-яёіїєґА-ЯЁІЇЄҐ]+|вихідн[а-яёіїєґА-ЯЁІЇЄҐ]+|минул[а-яёіїєґА-ЯЁІЇЄҐ]+)\s+(?:інструкц[а-яёіїєґА-ЯЁІЇЄҐ]+|вказівк[а-яёіїєґА-ЯЁІЇЄҐ]+|правил[а-яёіїєґА-ЯЁІЇЄҐ]*|команд[а-яёіїєґА-ЯЁІЇЄҐ]*|настанов[а-яёіїєґА-ЯЁІЇЄҐ]*)",
    r"|(?i:не\s+(?:кажи|повідомляй|розповідай|показуй|згадуй)[а-яёіїєґА-ЯЁІЇЄҐ]*\s+(?:нічого\s+|про\s+це\s+)?користувач[а-яёіїєґА-ЯЁІЇЄҐ]+)|без\s+(?:відома|повідомлення|згоди|підтвердження|дозволу)\s+користувач[а-яёіїєґА-ЯЁІЇЄҐ]+|(?i:прихову|сховай)[а-яёіїєґА-ЯЁІЇЄҐ]*\s+[^.\n]{0,40}?від\s+користувач[а-яёіїєґА-ЯЁІЇЄҐ]+",
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
            advice.push(finding(AdviceRule::SecurityInjection, text, at, WHAT, FIX));
        }
    }
    for text in input.read().filter(|text| text.kind == Kind::Code) {
        for at in in_comments(text, &input.clock) {
            advice.push(finding(AdviceRule::SecurityInjection, text, at, WHAT, FIX));
        }
    }
    advice
}

/// What a finding says, and how to fix it.
const WHAT: &str = "tries to take the agent over";
const FIX: &str = "an agent that loads the skill may follow it over its user's and its system's instructions: remove it, or, to quote an attack, put it in a fenced block introduced as an example";

/// The marks that start a comment in a script: the rest of its line is read by an agent
/// that opens the script, as prose.
const COMMENT_MARKS: [&str; 6] = ["#", "//", "/*", "<!--", "--", "REM "];

/// The offsets of matches of [`INJECTION`] in the comments of a script's lines (after a
/// comment mark that starts the line or follows white space), not guarded in their
/// sentence: a script the skill tells the agent to run or read speaks to it there.
fn in_comments(text: &Text<'_>, clock: &Clock) -> Vec<usize> {
    let mut found = Vec::new();
    for &line in text.triggered(Family::Injection) {
        let code = text.line(line);
        let comment = COMMENT_MARKS
            .iter()
            .filter_map(|mark| {
                let at = code.find(mark)?;
                (at == 0 || code[..at].ends_with([' ', '\t'])).then_some(at + mark.len())
            })
            .min()
            .or_else(|| {
                code.trim_start()
                    .starts_with('*')
                    .then(|| code.len() - code.trim_start().len() + 1)
            });
        let Some(start) = comment else {
            continue;
        };
        let comment = &code[start..];
        let quoted = |start: usize| comment[..start].matches(['"', '“', '`']).count() % 2 == 1;
        if let Some(matched) = clock.find_iter(&INJECTION, comment).find(|matched| {
            !guarded(&comment[..matched.start()], clock) && !quoted(matched.start())
        }) {
            found.push(text.line_start(line) + start + matched.start());
        }
    }
    found
}
