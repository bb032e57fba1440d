//! The formats as a table: each line a text, and the credential it holds or that it holds
//! none. Credentials are made at run time from a seed (and checksums computed), so that this
//! file holds nothing that looks like a live key to another scanner.

use super::*;

/// `length` characters of `alphabet`, the same for the same seed, random-looking.
fn random(seed: u64, length: usize, alphabet: &[u8]) -> String {
    let mut state = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (0..length)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            char::from(alphabet[((state >> 33) % alphabet.len() as u64) as usize])
        })
        .collect()
}

const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BASE64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const BASE64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const HEX: &[u8] = b"0123456789abcdef";
const BASE32: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// 30 random base62 characters and their CRC-32 in six base62 digits, as GitHub and npm make
/// them.
fn checksummed(seed: u64) -> String {
    let random = random(seed, 30, BASE62);
    let mut crc = u64::from(crc32fast::hash(random.as_bytes()));
    let mut check = [b'0'; 6];
    for digit in check.iter_mut().rev() {
        *digit = BASE62[(crc % 62) as usize];
        crc /= 62;
    }
    format!("{random}{}", String::from_utf8_lossy(&check))
}

fn github(prefix: &str) -> String {
    format!("{prefix}{}", checksummed(1))
}

fn private_key(label: &str) -> String {
    let body: Vec<String> = (0..6).map(|line| random(line, 64, BASE64)).collect();
    format!(
        "-----BEGIN {label}-----\n{}\n-----END {label}-----\n",
        body.join("\n")
    )
}

fn jwt(header: &str, claims: &str, signature: &str) -> String {
    let encode = |json: &str| base64url(json.as_bytes());
    format!("{}.{}.{signature}", encode(header), encode(claims))
}

fn base64url(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |n, &b| (n << 8) | u32::from(b)) << (8 * (3 - chunk.len()));
        for at in 0..=chunk.len() {
            out.push(char::from(BASE64URL[((n >> (18 - 6 * at)) & 63) as usize]));
        }
    }
    out
}

/// What `text` holds: each credential with its line and shown form.
fn found(text: &str) -> Vec<(u64, Credential, String)> {
    find_secrets(text.as_bytes())
        .into_iter()
        .map(|secret| {
            (
                secret.line(),
                secret.credential(),
                secret.shown().to_owned(),
            )
        })
        .collect()
}

macro_rules! finds {
    ($name:ident, $text:expr, $credential:ident) => {
        #[test]
        fn $name() {
            let text: String = $text;
            let found = found(&format!("# Setup\n\nexport KEY={text}\n"));
            assert_eq!(found.len(), 1, "{text}: {found:?}");
            assert_eq!(
                (found[0].0, found[0].1),
                (3, Credential::$credential),
                "{text}"
            );
            // The prefix and the last characters, at most, of a longer credential.
            let (prefix, tail) = found[0].2.split_once('…').unwrap();
            let tail = tail.split(' ').next().unwrap();
            let shown = prefix.len() + tail.len();
            assert!(
                text.contains(prefix) && text.contains(tail) && shown + 8 <= text.len(),
                "shown: {}",
                found[0].2
            );
        }
    };
}

macro_rules! finds_url {
    ($name:ident, $text:expr, $credential:ident) => {
        #[test]
        fn $name() {
            let text: String = $text;
            let found = found(&format!("# Setup\n\nexport KEY={text}\n"));
            assert_eq!(found.len(), 1, "{text}: {found:?}");
            assert_eq!(
                (found[0].0, found[0].1),
                (3, Credential::$credential),
                "{text}"
            );
            let password = text.split(':').nth(2).unwrap().split('@').next().unwrap();
            assert!(!found[0].2.contains(password), "shown: {}", found[0].2);
        }
    };
}

macro_rules! ignores {
    ($name:ident, $text:expr) => {
        #[test]
        fn $name() {
            let text: String = $text;
            assert_eq!(found(&text), [], "{text}");
        }
    };
}

finds!(
    aws_access_key_id,
    format!("AKIA{}", random(2, 16, BASE32)),
    AwsAccessKeyId
);
finds!(
    aws_temporary_key_id,
    format!("ASIA{}", random(3, 16, BASE32)),
    AwsAccessKeyId
);
ignores!(aws_documentation_key, "AKIAIOSFODNN7EXAMPLE".into());
ignores!(
    aws_unique_id_of_a_role,
    format!("AROA{}", random(4, 16, BASE32))
);
ignores!(
    aws_key_id_inside_a_longer_word,
    format!("XAKIA{}", random(2, 16, BASE32))
);
finds!(
    aws_secret_key_by_its_name,
    format!("aws_secret_access_key = {}", random(5, 40, BASE64)),
    AwsSecretAccessKey
);
ignores!(
    aws_documentation_secret_key,
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into()
);
ignores!(
    forty_base64_characters_under_another_name,
    format!("checksum = {}", random(5, 40, BASE64))
);
ignores!(
    aws_secret_key_from_the_environment,
    "AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY".into()
);
finds!(github_personal_access_token, github("ghp_"), GitHubToken);
finds!(github_app_token, github("ghs_"), GitHubToken);
ignores!(
    github_token_without_its_checksum,
    format!("ghp_{}", random(6, 36, BASE62))
);
ignores!(github_token_placeholder, format!("ghp_{}", "x".repeat(36)));
ignores!(
    github_token_counting,
    "ghp_1234567890abcdefghijklmnopqrstuvwxyz".into()
);
finds!(
    github_fine_grained_token,
    format!(
        "github_pat_{}_{}",
        random(7, 22, BASE62),
        random(8, 59, BASE62)
    ),
    GitHubFineGrainedToken
);
finds!(
    gitlab_personal_token,
    format!("glpat-{}", random(9, 20, BASE64URL)),
    GitLabToken
);
finds!(
    gitlab_routable_token,
    format!(
        "glpat-{}.01{}",
        random(10, 60, BASE64URL),
        random(11, 7, b"0123456789abcdefghijklmnopqrstuvwxyz")
    ),
    GitLabToken
);
ignores!(
    gitlab_token_placeholder,
    "glpat-xxxxxxxxxxxxxxxxxxxx".into()
);
finds!(
    slack_bot_token,
    format!(
        "xoxb-{}-{}-{}",
        random(12, 12, b"0123456789"),
        random(13, 13, b"0123456789"),
        random(14, 24, BASE62)
    ),
    SlackToken
);
finds!(
    slack_app_token,
    format!(
        "xapp-1-A{}-{}-{}",
        random(15, 10, BASE32),
        random(16, 13, b"0123456789"),
        random(17, 64, HEX)
    ),
    SlackToken
);
finds!(
    slack_webhook,
    format!(
        "https://hooks.slack.com/services/T{}/B{}/{}",
        random(18, 10, BASE32),
        random(19, 10, BASE32),
        random(20, 24, BASE62)
    ),
    SlackWebhook
);
ignores!(
    slack_documentation_webhook,
    "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX".into()
);
finds!(
    stripe_live_key,
    format!("sk_live_{}", random(21, 99, BASE62)),
    StripeLiveKey
);
finds!(
    stripe_restricted_key,
    format!("rk_live_{}", random(22, 24, BASE62)),
    StripeLiveKey
);
ignores!(
    stripe_test_key,
    format!("sk_test_{}", random(23, 99, BASE62))
);
ignores!(
    stripe_publishable_key,
    format!("pk_live_{}", random(24, 99, BASE62))
);
ignores!(
    stripe_placeholder,
    "sk_live_YOUR_SECRET_KEY_GOES_HERE_1234".into()
);
finds!(
    openai_project_key,
    format!(
        "sk-proj-{}T3BlbkFJ{}",
        random(25, 74, BASE64URL),
        random(26, 74, BASE64URL)
    ),
    OpenAiKey
);
finds!(
    openai_legacy_key,
    format!(
        "sk-{}T3BlbkFJ{}",
        random(27, 20, BASE62),
        random(28, 20, BASE62)
    ),
    OpenAiKey
);
ignores!(
    sk_dash_without_the_openai_marker,
    format!("sk-{}", random(29, 48, BASE62))
);
finds!(
    anthropic_key,
    format!("sk-ant-api03-{}AA", random(30, 93, BASE64URL)),
    AnthropicKey
);
ignores!(
    anthropic_key_of_the_wrong_length,
    format!("sk-ant-api03-{}AA", random(31, 80, BASE64URL))
);
ignores!(
    anthropic_prefix_alone,
    "ANTHROPIC_PREFIX = 'sk-ant-api03-'".into()
);
finds!(
    google_api_key,
    format!("AIza{}", random(32, 35, BASE64URL)),
    GoogleApiKey
);
ignores!(
    google_key_counting,
    "AIzaSyA1B2C3D4E5F6G7H8I9J0K1L2M3N4O5P6Q".into()
);
ignores!(google_key_filler, format!("AIza{}", "X".repeat(35)));
finds!(npm_token, format!("npm_{}", checksummed(33)), NpmToken);
ignores!(
    npm_token_without_its_checksum,
    format!("npm_{}", random(34, 36, BASE62))
);
finds!(
    pypi_token,
    format!("pypi-AgEIcHlwaS5vcmc{}", random(35, 120, BASE64URL)),
    PyPiToken
);
finds!(
    hugging_face_token,
    format!("hf_{}", random(36, 34, LETTERS)),
    HuggingFaceToken
);
ignores!(
    hugging_face_token_of_digits,
    format!("hf_{}", random(37, 34, b"0123456789"))
);
finds!(
    sendgrid_key,
    format!(
        "SG.{}.{}",
        random(38, 22, BASE64URL),
        random(39, 43, BASE64URL)
    ),
    SendGridKey
);
finds!(
    digitalocean_token,
    format!("dop_v1_{}", random(40, 64, HEX)),
    DigitalOceanToken
);
finds!(
    shopify_token,
    format!("shpat_{}", random(41, 32, HEX)),
    ShopifyToken
);
finds!(
    azure_storage_key,
    format!(
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={}==;",
        random(42, 86, BASE64)
    ),
    AzureStorageKey
);
ignores!(
    azurite_development_key,
    format!(
        "AccountKey=Eby8vdM02xNOcqFlqUwJ{}==",
        random(43, 66, BASE64)
    )
);
finds!(
    age_secret_key,
    format!(
        "AGE-SECRET-KEY-1{}",
        random(44, 58, b"QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
    ),
    AgeSecretKey
);
finds!(
    jwt_signed,
    jwt(
        r#"{"alg":"HS256","typ":"JWT"}"#,
        r#"{"sub":"u-8812","role":"service_role","iat":1716239022}"#,
        &random(45, 43, BASE64URL)
    ),
    Jwt
);
ignores!(
    jwt_unsigned,
    jwt(
        r#"{"alg":"none","typ":"JWT"}"#,
        r#"{"sub":"u-8812","admin":true}"#,
        ""
    )
);
ignores!(
    jwt_of_the_jwt_io_sample,
    jwt(
        r#"{"alg":"HS256","typ":"JWT"}"#,
        r#"{"sub":"1234567890","name":"John Doe","iat":1516239022}"#,
        &random(46, 43, BASE64URL)
    )
);
ignores!(
    jwt_of_a_counting_subject,
    jwt(
        r#"{"alg":"HS256","typ":"JWT"}"#,
        r#"{"sub":"1234567890"}"#,
        &random(56, 43, BASE64URL)
    )
);
ignores!(
    jwt_with_the_word_signature,
    jwt(
        r#"{"alg":"HS256","typ":"JWT"}"#,
        r#"{"sub":"u-8812"}"#,
        "signature"
    )
);
ignores!(
    jwt_public_supabase_key,
    jwt(
        r#"{"alg":"HS256","typ":"JWT"}"#,
        r#"{"iss":"supabase","role":"anon"}"#,
        &random(47, 43, BASE64URL)
    )
);
ignores!(
    jwt_shaped_but_not_json,
    format!(
        "eyJ{}.eyJ{}.{}",
        random(48, 20, BASE62),
        random(49, 20, BASE62),
        random(50, 43, BASE62)
    )
);
finds_url!(
    postgres_password,
    format!(
        "postgres://app:{}@db.prod.acme.io:5432/orders",
        random(51, 16, BASE62)
    ),
    UrlPassword
);
finds_url!(
    mongodb_srv_password,
    format!(
        "mongodb+srv://svc:{}@cluster0.abcde.mongodb.net",
        random(52, 20, BASE62)
    ),
    UrlPassword
);
finds_url!(
    sqlalchemy_password_with_a_driver,
    format!(
        "postgresql+psycopg2://app:{}@db.prod.acme.io/app",
        random(57, 16, BASE62)
    ),
    UrlPassword
);
finds_url!(
    mysql_password_with_a_driver,
    format!(
        "mysql+pymysql://app:{}@db.prod.acme.io/app",
        random(58, 16, BASE62)
    ),
    UrlPassword
);
finds_url!(
    url_password_with_a_dollar_inside,
    format!(
        "postgres://app:{}${}@db.prod.acme.io/app",
        random(59, 4, BASE62),
        random(62, 8, BASE62)
    ),
    UrlPassword
);
finds_url!(
    url_password_in_a_json_string,
    format!(
        "{{\"u\":\"postgres:\\/\\/app:{}@db.prod.acme.io\\/x\"}}",
        random(63, 16, BASE62)
    ),
    UrlPassword
);
ignores!(
    url_password_a_shell_variable,
    "postgres://app:$PGPASSWORD@db.prod.acme.io/app".into()
);
ignores!(
    url_password_github_oauth_basic,
    "git clone https://oauth2:x-oauth-basic@github.com/acme/repo".into()
);
ignores!(
    url_password_placeholder,
    "postgresql://user:password@host:5432/db".into()
);
ignores!(
    url_password_variable,
    "postgres://app:${DB_PASSWORD}@db.prod.acme.io/orders".into()
);
ignores!(
    url_password_template,
    "postgres://{{username}}:{{password}}@db.internal/app".into()
);
ignores!(
    url_password_for_localhost,
    format!("redis://:{}@localhost:6379", random(53, 16, BASE62))
);
ignores!(
    url_password_for_a_container,
    format!("postgres://app:{}@db:5432/app", random(54, 16, BASE62))
);
ignores!(
    url_password_for_an_example_host,
    format!("https://bob:{}@example.com/", random(55, 16, BASE62))
);
ignores!(
    url_without_a_password,
    "https://user@github.com/acme/tools.git".into()
);

#[test]
fn private_keys_of_every_label_are_found() {
    for label in [
        "RSA PRIVATE KEY",
        "EC PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
        "PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
        "PGP PRIVATE KEY BLOCK",
    ] {
        let text = format!("Use this key:\n\n{}", private_key(label));
        let found = found(&text);
        assert_eq!(found.len(), 1, "{label}: {found:?}");
        assert_eq!((found[0].0, found[0].1), (3, Credential::PrivateKey));
        assert_eq!(
            found[0].2,
            format!("-----BEGIN {label}----- … (6 lines of key material)")
        );
    }
}

#[test]
fn a_private_key_in_a_json_string_is_found() {
    let body: Vec<String> = (0..5).map(|line| random(line, 64, BASE64)).collect();
    let text = format!(
        "{{\"type\": \"service_account\", \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{}\\n-----END PRIVATE KEY-----\\n\"}}",
        body.join("\\n")
    );
    assert_eq!(found(&text).len(), 1, "{text}");
}

#[test]
fn an_encrypted_private_key_with_headers_is_found() {
    let body: Vec<String> = (0..5).map(|line| random(line, 64, BASE64)).collect();
    let text = format!(
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{}\n\n{}\n-----END RSA PRIVATE KEY-----\n",
        random(9, 32, HEX),
        body.join("\n")
    );
    assert_eq!(found(&text).len(), 1);
}

ignores!(
    private_key_header_in_prose,
    "Never commit a file that starts with `-----BEGIN RSA PRIVATE KEY-----`: it is a key.".into()
);
ignores!(
    private_key_of_dots,
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA...\n-----END RSA PRIVATE KEY-----\n".into()
);
ignores!(
    private_key_regex_in_a_scanner,
    "PATTERN = re.compile(r'-----BEGIN (RSA|EC) PRIVATE KEY-----[\\s\\S]+?-----END')\n".into()
);
ignores!(
    private_key_of_filler,
    format!(
        "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
        "A".repeat(128)
    )
);
ignores!(
    private_key_with_another_end,
    format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END EC PRIVATE KEY-----\n",
        random(1, 128, BASE64)
    )
);
ignores!(public_key, private_key("PUBLIC KEY"));

#[test]
fn a_comment_with_a_reason_suppresses_its_line_and_the_next() {
    let key = format!("sk_live_{}", random(60, 30, BASE62));
    let on_the_line = format!("KEY = '{key}'  # skillpub-allow security.secret: revoked in 2024\n");
    assert_eq!(found(&on_the_line), []);
    let before = format!("<!-- skillpub-allow security.secret: a revoked key -->\nKEY={key}\n");
    assert_eq!(found(&before), []);
    let two_lines_before = format!("# skillpub-allow security.secret: revoked\n\nKEY={key}\n");
    assert_eq!(found(&two_lines_before).len(), 1);
    let without_a_reason = format!("KEY={key} # skillpub-allow security.secret\n");
    assert_eq!(found(&without_a_reason).len(), 1);
    let another_code = format!("KEY={key} # skillpub-allow security.script: not this one\n");
    assert_eq!(found(&another_code).len(), 1);
}

#[test]
fn a_lone_carriage_return_ends_a_line_and_a_crlf_one() {
    let key = format!("sk_live_{}", random(61, 30, BASE62));
    let token = github("ghp_");
    let lines =
        |text: &str| -> Vec<u64> { found(text).into_iter().map(|(line, ..)| line).collect() };
    let cr = format!("# skillpub-allow security.secret: one doc key\rdoc\r{token}\r{key}\r");
    assert_eq!(
        lines(&cr),
        [3, 4],
        "the comment allows its line and the next only"
    );
    let crlf =
        format!("# skillpub-allow security.secret: one doc key\r\ndoc\r\n{token}\r\n{key}\r\n");
    assert_eq!(lines(&crlf), [3, 4]);
    let allowed = format!("# skillpub-allow security.secret: one doc key\r{key}\r\n{token}\n");
    assert_eq!(lines(&allowed), [3]);
}

#[test]
fn findings_name_their_lines_in_order() {
    let text = format!(
        "one\nAKIA{} and AKIA{}\n\nfour {}\n",
        random(70, 16, BASE32),
        random(71, 16, BASE32),
        github("gho_")
    );
    let lines: Vec<(u64, Credential)> = found(&text)
        .into_iter()
        .map(|(line, c, _)| (line, c))
        .collect();
    assert_eq!(
        lines,
        [
            (2, Credential::AwsAccessKeyId),
            (2, Credential::AwsAccessKeyId),
            (4, Credential::GitHubToken)
        ]
    );
}

#[test]
fn a_report_shows_the_prefix_and_the_last_characters() {
    let token = github("ghp_");
    let found = found(&token);
    assert_eq!(found[0].2, format!("ghp_…{}", &token[36..]));
    let url = format!("postgres://app:{}@db.acme.io/x", random(72, 16, BASE62));
    assert_eq!(found_one(&url), "postgres://app:…@db.acme.io");
}

fn found_one(text: &str) -> String {
    found(text).remove(0).2
}

#[test]
fn a_utf16_file_with_its_byte_order_mark_is_read_as_its_text() {
    let key = format!("sk_live_{}", random(81, 30, BASE62));
    let text = format!(
        "$env:STRIPE = 'x'\r\n{key}\r\n# skillpub-allow security.secret: a test\r\n{key}\r\n"
    );
    let little: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let big: Vec<u8> = [0xFE, 0xFF]
        .into_iter()
        .chain(text.encode_utf16().flat_map(u16::to_be_bytes))
        .collect();
    for bytes in [little, big] {
        let found = find_secrets(&bytes);
        let lines: Vec<u64> = found.iter().map(Secret::line).collect();
        assert_eq!(lines, [2], "the comment allows line 4");
        assert_eq!(found[0].credential(), Credential::StripeLiveKey);
    }
    // Without the mark, the same bytes are read as bytes, where the key is no run.
    let unmarked: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    assert!(find_secrets(&unmarked).is_empty());
}

#[test]
fn binary_files_are_read_too() {
    let mut bytes = vec![0u8, 159, 146, 150, 255];
    bytes.extend_from_slice(format!("AKIA{}", random(80, 16, BASE32)).as_bytes());
    bytes.extend_from_slice(&[0, 1, 2]);
    assert_eq!(find_secrets(&bytes).len(), 1);
}

#[test]
fn the_review_key_changes_with_any_file() {
    let a = Digest::of(b"a");
    let b = Digest::of(b"b");
    let key = review_key([("SKILL.md", a), ("x.md", b)]);
    assert_eq!(
        key,
        review_key([("x.md", b), ("SKILL.md", a)]),
        "sorted by path"
    );
    assert_ne!(key, review_key([("SKILL.md", a), ("x.md", a)]));
    assert_ne!(key, review_key([("SKILL.md", a), ("y.md", b)]));
    assert_ne!(key, review_key([("SKILL.md", a)]));
}

/// Texts that would make a scan quadratic if a reader went on to the end of a run, a line
/// or the text for each anchor, a block or a header on it.
fn hostile(n: usize) -> Vec<String> {
    vec![
        "-----BEGIN A PRIVATE KEY-----\n".repeat(n),
        "-----BEGIN A PRIVATE KEY-----\nComment: x\n".repeat(n),
        "-----BEGIN A PRIVATE KEY-----Comment: -----BEGIN A PRIVATE KEY-----\n".repeat(n),
        "secret".repeat(n),
        "aws_secret_access_key=".repeat(n),
        "a://".repeat(n),
        "postgres://u:".repeat(n),
        "SG.".repeat(n),
        "hooks.slack.com/services/".repeat(n),
        "AccountKey=".repeat(n),
        "eyJhbGciOiJIUzI1NiJ9.".repeat(n),
        format!("sk-{}", "a".repeat(n)),
        format!("{}\n", "x".repeat(n)),
        format!("KEY={} # skillpub-allow security.secret\n", github("ghp_")).repeat(n / 64),
    ]
}

/// A liveness bound, not a speed goal (that is the cold-start bench's): each hostile text of
/// 2 MiB is scanned in well under the seconds a quadratic scan would take.
#[test]
fn hostile_texts_are_scanned_in_linear_time() {
    for text in hostile(2 << 20 >> 4) {
        let started = std::time::Instant::now();
        let _ = find_secrets(text.as_bytes());
        let elapsed = started.elapsed();
        assert!(
            elapsed < std::time::Duration::from_secs(10),
            "{elapsed:?} for {:?}…",
            &text[..40.min(text.len())]
        );
    }
}

/// Suppression comments are read in linear time: each byte of a line looked at a bounded
/// number of times, however many markers without a colon it holds.
#[test]
fn suppression_comments_are_read_in_linear_time() {
    let token = github("ghp_");
    for line in [
        format!("{token} {}", "skillpub-allow x ".repeat(4096)),
        format!("{token} {}", "skillpub-allow security.secret ".repeat(4096)),
        format!(
            "{token} {}",
            "skillpub-allow security.secret: 1 ".repeat(4096)
        ),
        format!("{}{token}", "skillpub-allow ".repeat(4096)),
    ] {
        allow::BYTES_READ.with(|read| read.set(0));
        let _ = find_secrets(line.as_bytes());
        let read = allow::BYTES_READ.with(std::cell::Cell::get);
        assert!(
            read <= 4 * line.len(),
            "{read} bytes read for a line of {}: {:?}…",
            line.len(),
            &line[..60]
        );
    }
}

/// A key is found as the file means it: split into string pieces over the lines of a call, or
/// stored in base64 (a Kubernetes secret), each at the line its statement starts on.
#[test]
fn a_key_split_into_pieces_or_stored_in_base64_is_found() {
    let key = format!("sk_live_{}", random(40, 32, BASE62));
    let (first, second) = key.split_at(20);
    let split = format!(
        "import os\n\nstripe.api_key = os.environ.get(\"STRIPE_API_KEY\") or (\n    \"{first}\"\n    \"{second}\"\n)\n"
    );
    let found = find_secrets(split.as_bytes());
    assert_eq!(
        found
            .iter()
            .map(|secret| (secret.line(), secret.credential()))
            .collect::<Vec<_>>(),
        [(3, Credential::StripeLiveKey)]
    );
    let concatenated = format!(
        "token = \"{}\" + \"{}\"\n",
        &github("ghp_")[..12],
        &github("ghp_")[12..]
    );
    assert_eq!(
        find_secrets(concatenated.as_bytes()).len(),
        1,
        "{concatenated}"
    );
    let id = format!("AKIA{}", random(41, 16, BASE32));
    let manifest = format!(
        "kind: Secret\ndata:\n  AWS_ACCESS_KEY_ID: {}\n",
        base64_standard(id.as_bytes())
    );
    let found = find_secrets(manifest.as_bytes());
    assert_eq!(
        found
            .iter()
            .map(|secret| (secret.line(), secret.credential()))
            .collect::<Vec<_>>(),
        [(3, Credential::AwsAccessKeyId)],
        "{manifest}"
    );
}

/// Standard base64, padded.
fn base64_standard(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |n, &b| (n << 8) | u32::from(b)) << (8 * (3 - chunk.len()));
        for at in 0..4 {
            out.push(if at <= chunk.len() {
                char::from(BASE64[((n >> (18 - 6 * at)) & 63) as usize])
            } else {
                '='
            });
        }
    }
    out
}
