// SPDX-License-Identifier: MIT
#include "scan/scanrules.h"

namespace Cordon::Scan {

namespace {

// A dot-separated DNS suffix as a pattern: letters, digits and hyphens only, dots escaped.
std::string suffixPattern(const std::string &suffix)
{
    std::string out;
    for (char c : suffix) {
        if (c == '.')
            out += "\\.";
        else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-')
            out += c;
        else
            return {};
    }
    return out;
}

} // namespace

const std::vector<std::string> &defaultInternalSuffixes()
{
    static const std::vector<std::string> Suffixes{"internal", "corp",        "lan",      "local",
                                                   "intranet", "localdomain", "home.arpa"};
    return Suffixes;
}

std::vector<ScanRule> scanRules(const std::vector<std::string> &internalSuffixes)
{
    std::string suffixes;
    for (const std::string &suffix : internalSuffixes) {
        const std::string pattern = suffixPattern(suffix);
        if (pattern.empty())
            continue;
        suffixes += (suffixes.empty() ? "" : "|") + pattern;
    }
    // The samples are made up; the key shapes follow the issuers' published formats.
    std::vector<ScanRule> rules{
        {"private_key.pem", Severity::High, "a PEM private key (PKCS#1, PKCS#8, EC, DSA, encrypted)",
         "-----BEGIN (?:(?:RSA|EC|DSA|ENCRYPTED) )?PRIVATE KEY-----", 0,
         "-----BEGIN RSA PRIVATE KEY-----\nMIIEow...\n", "-----BEGIN PUBLIC KEY-----\nMFkw...\n"},
        {"private_key.openssh", Severity::High, "an OpenSSH private key",
         "-----BEGIN OPENSSH PRIVATE KEY-----", 0,
         "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n",
         "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleExampleExample user@host\n"},
        {"aws.access_key_id", Severity::High, "an AWS access key id (long-lived AKIA or temporary ASIA)",
         "\\b((?:AKIA|ASIA)[0-9A-Z]{16})\\b", 0, "aws_access_key_id = AKIAQ3EXAMPLE7JX2KPL\n",
         "AKIAEXAMPLE is too short to be a key id\n"},
        {"aws.secret_access_key", Severity::High, "an AWS secret access key assigned to its usual name",
         "(?i)aws_?secret_?access_?key[\"']?\\s*[:=]\\s*[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])", 0,
         "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
         "aws_secret_access_key = <from the environment>\n"},
        {"github.token", Severity::High, "a GitHub token (personal, OAuth, app, refresh, fine-grained)",
         "\\b((?:gh[pousr]_[A-Za-z0-9]{36,255})|(?:github_pat_[A-Za-z0-9_]{82}))\\b", 0,
         "token: ghp_R2d2C3poExampleTokenValue0123456789ab\n", "the branch ghp_feature is not a token\n"},
        {"gitlab.token", Severity::High, "a GitLab personal, project or group access token",
         "\\b(glpat-[A-Za-z0-9_-]{20,})", 0, "GITLAB=glpat-Xq3vExample9Token_Ab\n",
         "glpat- tokens start so\n"},
        {"slack.token", Severity::High, "a Slack bot, user, app or refresh token",
         "\\b(xox[baprse]-[A-Za-z0-9-]{10,})", 0, "slack: xoxb-2048-4096-ExampleBotToken42\n",
         "the xox pattern in prose\n"},
        {"slack.webhook", Severity::High, "a Slack incoming-webhook URL",
         "(https://hooks\\.slack\\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{16,})", 0,
         "https://hooks.slack.com/services/T0EXAMPLE/B0EXAMPLE/ExampleWebhookSecret42\n",
         "https://hooks.slack.com/ is documented here\n"},
        {"openai.key", Severity::High, "an OpenAI API key (project, service account, admin or legacy)",
         "\\b((?:sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,})|(?:sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})"
         ")",
         0, "OPENAI_API_KEY=sk-proj-Ex4mpleKeyValueThatIsLongEnoughToLookReal0123\n",
         "sk-proj- is the prefix of project keys\n"},
        {"anthropic.key", Severity::High, "an Anthropic API or admin key",
         "\\b(sk-ant-(?:api|admin)\\d{2}-[A-Za-z0-9_-]{32,})", 0,
         "ANTHROPIC_API_KEY=sk-ant-api03-Ex4mpleKeyValue_ThatIsLongEnough-0123456789\n",
         "keys start with sk-ant-api03-\n"},
        {"jwt", Severity::Medium, "a JSON Web Token (a signed header and payload)",
         "(?<![A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,})", 0,
         "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIn0.c2lnbmF0dXJlLWV4YW1wbGU\n",
         "eyJhbGciOiJIUzI1NiJ9 alone is only a header\n"},
        {"credential.assignment", Severity::Medium,
         "a password, token, secret or key assigned a random-looking value (`DB_PASSWORD=...`, `token: ...`)",
         "(?i)(?:passw(?:or)?d|secret|token|api_?key|_key)[\"']?\\s*[:=]\\s*[\"']?([^\\s\"',;<>\\[\\]]{12,})",
         3.0, "DB_PASSWORD=Xk9mQ2vL7pR4nZ8w\n", "password = changeme-please\n"},
        {"cookie.header", Severity::Medium, "a Cookie or Set-Cookie header with a value",
         "(?im)^[ \\t]*(?:set-)?cookie:[ \\t]*[^=\\s;]+=([^;\\s]{8,})", 0,
         "Set-Cookie: session=8f14e45fceea167a5a36dedd4bea2543; Path=/; HttpOnly\n",
         "This site uses cookies: see the policy.\n"},
        {"cookie.netscape", Severity::Medium,
         "a line of a Netscape cookie file (curl, wget, browsers' exports)",
         "(?m)^(?:#HttpOnly_)?[A-Za-z0-9.-]+\\t(?:TRUE|FALSE)\\t/"
         "[^\\t\\n]*\\t(?:TRUE|FALSE)\\t\\d+\\t[^\\t\\n]+\\t([^\\t\\r\\n]+)$",
         0, ".example.com\tTRUE\t/\tTRUE\t1893456000\tsid\tb3f1c0ffee42\n", "name\tTRUE\tvalue\tFALSE\n"},
        {"address.metadata", Severity::Medium, "a cloud metadata endpoint (instance credentials live there)",
         "(169\\.254\\.169\\.254|(?i:metadata\\.google\\.internal)|\\[fd00:ec2::254\\])", 0,
         "curl http://169.254.169.254/latest/meta-data/iam/\n", "metadata.google.com is a public name\n"},
        {"address.private_ip", Severity::Low, "a loopback, private, shared or link-local IPv4 address",
         "(?<![0-9.])((?:127|10)\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}|192\\.168\\.\\d{1,3}\\.\\d{1,3}|"
         "172\\.(?:1[6-9]|2\\d|3[01])\\.\\d{1,3}\\.\\d{1,3}|169\\.254\\.\\d{1,3}\\.\\d{1,3}|"
         "100\\.(?:6[4-9]|[7-9]\\d|1[01]\\d|12[0-7])\\.\\d{1,3}\\.\\d{1,3})(?![0-9.]*\\d)",
         0, "db_host: 10.20.30.40\n", "version 110.20.30.40 and 8.8.8.8\n"},
        {"address.internal_host", Severity::Low,
         "a host name under an internal suffix, or localhost in a URL",
         "(?i)(?<=[a-z0-9])\\.(?:" + suffixes + ")(?![a-z0-9-])|https?://localhost(?![a-z0-9.-])", 0,
         "wiki: https://build.corp/jobs/42\n", "the corporate website\n", true},
    };
    return rules;
}

} // namespace Cordon::Scan
