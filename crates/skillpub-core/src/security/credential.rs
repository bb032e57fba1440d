//! The kinds of credential the review knows, each with how people name it and where it is
//! revoked.

use std::fmt;

/// A kind of credential that [`find_secrets`](super::find_secrets) recognises by its published
/// format.
///
/// # Example
///
/// ```
/// use skillpub_core::security::Credential;
///
/// assert_eq!(Credential::PrivateKey.to_string(), "a private key");
/// assert!(Credential::GitHubToken.revoke().contains("github.com/settings"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Credential {
    /// An AWS access key ID (`AKIA…`, `ASIA…`): half of a key pair, and what names it.
    AwsAccessKeyId,
    /// An AWS secret access key, assigned to a name such as `aws_secret_access_key`.
    AwsSecretAccessKey,
    /// A GitHub token (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`) whose checksum holds.
    GitHubToken,
    /// A GitHub fine-grained personal access token (`github_pat_…`).
    GitHubFineGrainedToken,
    /// A GitLab token (`glpat-`, `gldt-`, `glrt-`, `gloas-` and the other `gl…-` prefixes).
    GitLabToken,
    /// A Slack token (`xoxb-`, `xoxp-`, `xapp-`…).
    SlackToken,
    /// A Slack incoming webhook (`https://hooks.slack.com/services/T…/B…/…`).
    SlackWebhook,
    /// A Stripe live secret or restricted key (`sk_live_`, `rk_live_`).
    StripeLiveKey,
    /// An OpenAI API key (`sk-…T3BlbkFJ…`).
    OpenAiKey,
    /// An Anthropic API or admin key (`sk-ant-api03-…AA`).
    AnthropicKey,
    /// A Google API key (`AIza…`).
    GoogleApiKey,
    /// An npm access token (`npm_…`) whose checksum holds.
    NpmToken,
    /// A PyPI upload token (`pypi-AgEIcHlwaS5vcmc…`).
    PyPiToken,
    /// A Hugging Face access token (`hf_…`, `api_org_…`).
    HuggingFaceToken,
    /// A SendGrid API key (`SG.….…`).
    SendGridKey,
    /// A DigitalOcean token (`dop_v1_`, `doo_v1_`, `dor_v1_`).
    DigitalOceanToken,
    /// A Shopify access token or shared secret (`shpat_`, `shpca_`, `shppa_`, `shpss_`).
    ShopifyToken,
    /// An Azure storage account key (`AccountKey=…` in a connection string).
    AzureStorageKey,
    /// An age secret key (`AGE-SECRET-KEY-1…`).
    AgeSecretKey,
    /// A private key in PEM or OpenSSH form (`-----BEGIN … PRIVATE KEY-----` with its body).
    PrivateKey,
    /// A signed JSON Web Token (`eyJ….eyJ….…`).
    Jwt,
    /// A password in a URL or connection string (`postgres://user:password@host`).
    UrlPassword,
}

impl Credential {
    /// How people name it, with its article: `a GitHub token`.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::AwsAccessKeyId => "an AWS access key ID",
            Self::AwsSecretAccessKey => "an AWS secret access key",
            Self::GitHubToken => "a GitHub token",
            Self::GitHubFineGrainedToken => "a GitHub fine-grained personal access token",
            Self::GitLabToken => "a GitLab token",
            Self::SlackToken => "a Slack token",
            Self::SlackWebhook => "a Slack webhook URL",
            Self::StripeLiveKey => "a Stripe live secret key",
            Self::OpenAiKey => "an OpenAI API key",
            Self::AnthropicKey => "an Anthropic API key",
            Self::GoogleApiKey => "a Google API key",
            Self::NpmToken => "an npm access token",
            Self::PyPiToken => "a PyPI API token",
            Self::HuggingFaceToken => "a Hugging Face access token",
            Self::SendGridKey => "a SendGrid API key",
            Self::DigitalOceanToken => "a DigitalOcean token",
            Self::ShopifyToken => "a Shopify access token",
            Self::AzureStorageKey => "an Azure storage account key",
            Self::AgeSecretKey => "an age secret key",
            Self::PrivateKey => "a private key",
            Self::Jwt => "a signed JSON Web Token",
            Self::UrlPassword => "a password in a URL",
        }
    }

    /// Where or how it is revoked, for the fix: once published, a credential is known to
    /// everyone who fetched the skill, so removing it is not enough.
    #[must_use]
    pub fn revoke(self) -> &'static str {
        match self {
            Self::AwsAccessKeyId | Self::AwsSecretAccessKey => {
                "deactivate the key pair in the AWS IAM console"
            }
            Self::GitHubToken | Self::GitHubFineGrainedToken => {
                "revoke it at https://github.com/settings/tokens"
            }
            Self::GitLabToken => "revoke it in GitLab's access token settings",
            Self::SlackToken | Self::SlackWebhook => "revoke it at https://api.slack.com/apps",
            Self::StripeLiveKey => "roll it at https://dashboard.stripe.com/apikeys",
            Self::OpenAiKey => "revoke it at https://platform.openai.com/api-keys",
            Self::AnthropicKey => "revoke it at https://console.anthropic.com/settings/keys",
            Self::GoogleApiKey => {
                "delete or restrict it at https://console.cloud.google.com/apis/credentials"
            }
            Self::NpmToken => "revoke it at https://www.npmjs.com/settings/~/tokens",
            Self::PyPiToken => "remove it at https://pypi.org/manage/account/token/",
            Self::HuggingFaceToken => "invalidate it at https://huggingface.co/settings/tokens",
            Self::SendGridKey => "delete it at https://app.sendgrid.com/settings/api_keys",
            Self::DigitalOceanToken => {
                "revoke it at https://cloud.digitalocean.com/account/api/tokens"
            }
            Self::ShopifyToken => "rotate it in the app's settings in the Shopify admin",
            Self::AzureStorageKey => "rotate the account key in the Azure portal",
            Self::AgeSecretKey => "re-encrypt what it protects for a new key",
            Self::PrivateKey => "replace the key pair and withdraw its public key or certificate",
            Self::Jwt => "revoke the token or rotate the key that signed it",
            Self::UrlPassword => "change the password",
        }
    }
}

/// The [`label`](Credential::label).
impl fmt::Display for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}
