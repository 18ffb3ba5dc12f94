//! A granted network host: [`HostGrant`].

use std::net::{Ipv4Addr, Ipv6Addr};

use super::{PatternError, escape_controls};

/// Second-level labels under which a two-letter country code forms a public suffix
/// (`co.uk`, `com.au`, `ac.jp`, `gov.br`…): a wildcard right under one (`*.co.uk`) covers
/// every site registered there, so it is refused like `*.com`.
pub const PUBLIC_SECOND_LEVEL: &[&str] = &[
    "ac", "co", "com", "edu", "gob", "go", "gov", "govt", "ltd", "mil", "ne", "net", "nhs", "nic",
    "or", "org", "plc", "sch",
];

/// A host a person trusts for plain reads (GET, HEAD, OPTIONS): an exact host name or IP
/// address (`api.github.com`, `10.0.0.5`), or `*.example.com` for every subdomain of
/// `example.com` (not `example.com` itself, unless it is granted too).
///
/// It validates on construction, so a value that exists is well formed and never too broad:
/// the name is lower-cased and a trailing dot dropped; a scheme, user, port, path, query or
/// fragment is refused (a grant names a host, not a URL); `*` is allowed only as a leading
/// `*.`; and a wildcard is refused when it would cover a whole top-level domain (`*`, `*.com`),
/// a public suffix made of one of [`PUBLIC_SECOND_LEVEL`] and a two-letter country code
/// (`*.co.uk`, `*.com.au`), or a range of IP addresses (`*.0.10`).
///
/// ```
/// use shellgate_rules::HostGrant;
///
/// let grant = HostGrant::new("*.GitHub.com.").unwrap();
/// assert_eq!(grant.as_str(), "*.github.com");
/// assert!(grant.matches("api.github.com"));
/// assert!(!grant.matches("github.com"));
/// assert!(HostGrant::new("https://api.github.com").is_err());
/// assert!(HostGrant::new("*.co.uk").is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HostGrant {
    /// The normalised grant as text (`api.github.com`, `*.example.com`).
    text: String,
}

impl HostGrant {
    /// Normalises and validates a host grant (see the type's docs).
    ///
    /// # Errors
    ///
    /// [`PatternError::ControlCharacter`], [`PatternError::EmptyHost`],
    /// [`PatternError::NotAHost`] for a URL or a malformed name, and
    /// [`PatternError::HostTooBroad`] for a wildcard over a top-level domain, a public suffix
    /// or an IP range.
    pub fn new(text: &str) -> Result<Self, PatternError> {
        if text.chars().any(char::is_control) {
            return Err(PatternError::ControlCharacter {
                text: escape_controls(text),
            });
        }
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(PatternError::EmptyHost);
        }
        let not_a_host = |why: &'static str| PatternError::NotAHost {
            text: text.to_owned(),
            why,
        };
        if trimmed.contains("://") {
            return Err(not_a_host("it has a scheme"));
        }
        if trimmed.contains('@') {
            return Err(not_a_host("it has a user part"));
        }
        if trimmed.contains(['/', '?', '#']) {
            return Err(not_a_host("it has a path"));
        }
        let lower = trimmed.to_ascii_lowercase();
        if lower.contains(':') {
            // Only a bare IPv6 address has colons; anything else names a port.
            return match lower.parse::<Ipv6Addr>() {
                Ok(ip) => Ok(Self {
                    text: ip.to_string(),
                }),
                Err(_) => Err(not_a_host("it has a port")),
            };
        }
        let name = lower.strip_suffix('.').unwrap_or(&lower);
        let too_broad = |why: &'static str| PatternError::HostTooBroad {
            text: text.to_owned(),
            why,
        };
        let (wildcard, base) = match name.strip_prefix("*.") {
            Some(base) => (true, base),
            None if name == "*" => return Err(too_broad("it trusts every host")),
            None => (false, name),
        };
        if base.contains('*') {
            return Err(not_a_host(
                "`*` may only stand first, as `*.` before a domain",
            ));
        }
        let labels: Vec<&str> = base.split('.').collect();
        let label_ok = |label: &&str| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        };
        if base.len() > 253 || !labels.iter().all(label_ok) {
            return Err(not_a_host(
                "a host name is dot-separated letters, digits, `-` and `_`",
            ));
        }
        if wildcard {
            if labels
                .iter()
                .all(|label| label.chars().all(|c| c.is_ascii_digit()))
            {
                return Err(too_broad("it covers a range of IP addresses"));
            }
            match labels.as_slice() {
                [_] => return Err(too_broad("it covers a whole top-level domain")),
                [second, country] if country.len() == 2 && PUBLIC_SECOND_LEVEL.contains(second) => {
                    return Err(too_broad("it covers a whole public suffix"));
                }
                _ => {}
            }
        } else if base.parse::<Ipv4Addr>().is_err()
            && labels.len() == 4
            && labels
                .iter()
                .all(|label| label.chars().all(|c| c.is_ascii_digit()))
        {
            return Err(not_a_host("it is not a valid IPv4 address"));
        }
        Ok(Self {
            text: if wildcard {
                format!("*.{base}")
            } else {
                base.to_owned()
            },
        })
    }

    /// The normalised grant.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether it is a `*.domain` wildcard.
    #[must_use]
    pub fn is_wildcard(&self) -> bool {
        self.text.starts_with("*.")
    }

    /// Whether `host` (as a URL names it: any case, with or without a trailing dot) is this
    /// host, or for a wildcard one of its subdomains.
    #[must_use]
    pub fn matches(&self, host: &str) -> bool {
        let host = host.strip_suffix('.').unwrap_or(host);
        match self.text.strip_prefix("*.") {
            Some(base) => host
                .len()
                .checked_sub(base.len())
                .and_then(|at| at.checked_sub(1))
                .and_then(|dot| host.get(dot..))
                .is_some_and(|tail| {
                    tail.strip_prefix('.')
                        .is_some_and(|rest| rest.eq_ignore_ascii_case(base))
                        && host.len() > base.len() + 1
                }),
            None => host.eq_ignore_ascii_case(&self.text),
        }
    }
}

text_grant!(HostGrant);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_are_normalised() {
        let cases = [
            ("api.github.com", "api.github.com"),
            ("API.GitHub.com.", "api.github.com"),
            (" *.Example.com ", "*.example.com"),
            ("10.0.0.5", "10.0.0.5"),
            ("::1", "::1"),
            ("intranet", "intranet"),
            ("*.github.io", "*.github.io"),
            ("*.example.co.uk", "*.example.co.uk"),
        ];
        for (text, expected) in cases {
            assert_eq!(HostGrant::new(text).unwrap().as_str(), expected, "{text}");
        }
    }

    #[test]
    fn refusals_say_why() {
        let cases = [
            ("", "the host is empty"),
            ("*", "`*` would trust too many hosts: it trusts every host"),
            (
                "*.com",
                "`*.com` would trust too many hosts: it covers a whole top-level domain",
            ),
            (
                "*.co.uk",
                "`*.co.uk` would trust too many hosts: it covers a whole public suffix",
            ),
            (
                "*.com.au",
                "`*.com.au` would trust too many hosts: it covers a whole public suffix",
            ),
            (
                "*.0.10",
                "`*.0.10` would trust too many hosts: it covers a range of IP addresses",
            ),
            (
                "https://api.github.com",
                "`https://api.github.com` is not a host: it has a scheme",
            ),
            (
                "api.github.com:443",
                "`api.github.com:443` is not a host: it has a port",
            ),
            (
                "api.github.com/repos",
                "`api.github.com/repos` is not a host: it has a path",
            ),
            (
                "me@example.com",
                "`me@example.com` is not a host: it has a user part",
            ),
            (
                "10.0.0.*",
                "`10.0.0.*` is not a host: `*` may only stand first, as `*.` before a domain",
            ),
            (
                "a..b",
                "`a..b` is not a host: a host name is dot-separated letters, digits, `-` and `_`",
            ),
            (
                "300.1.1.1",
                "`300.1.1.1` is not a host: it is not a valid IPv4 address",
            ),
        ];
        for (text, message) in cases {
            assert_eq!(
                HostGrant::new(text).unwrap_err().to_string(),
                message,
                "{text}"
            );
        }
    }

    #[test]
    fn wildcards_match_subdomains_only() {
        let grant = HostGrant::new("*.example.com").unwrap();
        for host in ["a.example.com", "A.B.Example.COM", "a.example.com."] {
            assert!(grant.matches(host), "{host}");
        }
        for host in [
            "example.com",
            "evilexample.com",
            "example.com.evil",
            ".example.com",
        ] {
            assert!(!grant.matches(host), "{host}");
        }
        let exact = HostGrant::new("example.com").unwrap();
        assert!(exact.matches("EXAMPLE.com."));
        assert!(!exact.matches("a.example.com"));
    }
}
