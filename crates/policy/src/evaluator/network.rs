//! Network clients (`[[network]]`): which hosts a command connects to and what it sends.
//! A plain read (no data sent, no file uploaded, method GET/HEAD/OPTIONS) of a loopback host
//! or of a host the state grants ([`TrustState::host_grant_for`]) runs silently; a plain read
//! of any other host needs a person, and the prompt proposes the host as a grant. Sending data
//! or a method other than GET/HEAD/OPTIONS changes something: it needs a person on every host,
//! loopback and granted hosts included (a local Elasticsearch, Kong admin API or search index
//! deletes data on `curl -X DELETE localhost:9200/_all`); to a remote host it is never saved
//! for good, and a file sent over the network never is. A host that is not known statically is
//! never saved either.
//!
//! [`TrustState::host_grant_for`]: crate::TrustState::host_grant_for

use shellgate_rules::{Decision, HostGrant};

use crate::evaluation::ReasonKind;

use super::run::Run;
use super::verdict::Judged;

impl Run<'_> {
    /// Judges the network effects of a `[[network]]` command; returns whether it runs
    /// silently as far as the network is concerned.
    pub(super) fn judge_network(&self, judged: &mut Judged) -> bool {
        let net = std::mem::take(&mut judged.net);
        let changes = net.sends
            || net
                .method
                .as_deref()
                .is_some_and(|m| !matches!(m, "GET" | "HEAD" | "OPTIONS"));
        // Only a plain read may ride a host grant, or propose one.
        let plain_read = !changes && net.uploads.is_empty();
        let mut silent = true;
        let mut remote: Vec<&str> = Vec::new();
        for (host, shown) in &net.hosts {
            match host {
                None => {
                    silent = false;
                    judged.ask_unsaveable(
                        ReasonKind::Network,
                        None,
                        format!("connects to `{shown}`, whose host is not known statically"),
                    );
                }
                Some(host) if is_loopback(host) => judged.reason(
                    ReasonKind::Network,
                    None,
                    format!("connects to `{host}`, this machine (loopback)"),
                ),
                Some(host) => {
                    remote.push(host);
                    if !plain_read {
                        silent = false;
                        judged.ask(
                            ReasonKind::Network,
                            None,
                            format!("connects to `{host}`, another machine"),
                        );
                        continue;
                    }
                    if let Some(granted) = self.state.host_grant_for(host) {
                        judged.reason(
                            ReasonKind::Network,
                            Some(granted.host.as_str().to_owned()),
                            format!(
                                "reads from `{host}`, a granted host (`{}`, {})",
                                granted.host,
                                granted.source.as_str()
                            ),
                        );
                        continue;
                    }
                    silent = false;
                    match HostGrant::new(host) {
                        // Only the host needs a person: the prompt proposes it, not the command.
                        Ok(grant) => {
                            judged.raise(Decision::NeedsPrompt);
                            judged.reason(
                                ReasonKind::Network,
                                None,
                                format!(
                                    "reads from `{host}`, another machine; proposed host grant `{grant}`"
                                ),
                            );
                            if !judged.hosts.contains(&grant) {
                                judged.hosts.push(grant);
                            }
                        }
                        Err(_) => {
                            judged.ask_unsaveable(
                                ReasonKind::Network,
                                None,
                                format!(
                                    "connects to `{host}`, another machine, which cannot be granted as a host"
                                ),
                            );
                        }
                    }
                }
            }
        }
        for file in &net.uploads {
            silent = false;
            judged.ask_unsaveable(
                ReasonKind::Network,
                None,
                format!("sends the content of `{file}` over the network"),
            );
        }
        if changes {
            let local: Vec<&str> = net
                .hosts
                .iter()
                .filter_map(|(host, _)| host.as_deref())
                .filter(|host| is_loopback(host))
                .collect();
            if !remote.is_empty() {
                silent = false;
                judged.ask_unsaveable(
                    ReasonKind::Network,
                    None,
                    format!(
                        "sends data or changes something on `{}` (not a plain read)",
                        remote.join("`, `")
                    ),
                );
            }
            if !local.is_empty() {
                silent = false;
                judged.ask(
                    ReasonKind::Network,
                    None,
                    format!(
                        "sends data or changes something on `{}`, a service on this machine (not a plain read)",
                        local.join("`, `")
                    ),
                );
            }
        }
        judged.net = net;
        silent
    }
}

/// The host of a URL or host argument: `https://user@example.com:8443/x` → `example.com`,
/// `localhost:8000/health` → `localhost`, `[::1]:80` → `::1`. `None` when there is none.
pub(super) fn host_of(url: &str) -> Option<String> {
    // `--url @FILE` (curl 8.13 and later) reads URLs from FILE: no host is known here.
    if url.starts_with('@') {
        return None;
    }
    let rest = match url.split_once("://") {
        Some((scheme, rest))
            if !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) =>
        {
            rest
        }
        _ => url,
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(inner) = authority.strip_prefix('[') {
        inner.split(']').next()?
    } else {
        authority.split(':').next()?
    };
    // Only a host name or address a grant can name: anything else (blanks, quotes, non-ASCII)
    // is not known statically, so it is never proposed or saved.
    let plain = host
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '%'));
    (!host.is_empty() && plain).then(|| host.to_ascii_lowercase())
}

/// Whether a host is this machine: `localhost` (and names under it), `127.0.0.0/8`, `::1`,
/// `0.0.0.0`.
pub(super) fn is_loopback(host: &str) -> bool {
    let host = host.trim_end_matches('.');
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "::1"
        || host == "0.0.0.0"
        || host == "ip6-localhost"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The file a `send` argument names: `@FILE`, `<FILE`, `NAME=@FILE`, `NAME=<FILE` (curl's
/// `-d`, `-F`, `--json`); `None` for literal data.
pub(super) fn sent_file(text: &str) -> Option<&str> {
    if let Some(file) = text.strip_prefix('@').or_else(|| text.strip_prefix('<')) {
        return (!file.is_empty() && file != "-").then_some(file);
    }
    let (_, value) = text.split_once('=')?;
    let file = value
        .strip_prefix('@')
        .or_else(|| value.strip_prefix('<'))?;
    let file = file.split(';').next()?;
    (!file.is_empty() && file != "-").then_some(file)
}

/// Whether a sent value is standard input (`@-`, `<-`, `NAME=@-`): whatever is piped in.
pub(super) fn sends_stdin(text: &str) -> bool {
    let value = text.split_once('=').map_or(text, |(_, v)| v);
    matches!(value, "@-" | "<-") || matches!(text, "@-" | "<-")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cases of these tests (see the file).
    const CASES: &str = include_str!("../../tests/cases/network.toml");

    #[test]
    fn hosts_of_urls() {
        shellgate_testkit::check_pairs(CASES, "host_of", host_of);
    }

    #[test]
    fn loopback_hosts() {
        for host in [
            "localhost",
            "api.localhost",
            "127.0.0.1",
            "127.1.2.3",
            "::1",
            "0.0.0.0",
        ] {
            assert!(is_loopback(host), "{host}");
        }
        for host in [
            "example.com",
            "localhost.example.com",
            "10.0.0.1",
            "128.0.0.1",
            "::2",
        ] {
            assert!(!is_loopback(host), "{host}");
        }
    }

    #[test]
    fn files_sent() {
        shellgate_testkit::check_pairs(CASES, "sent_file", |text| {
            sent_file(text).map(str::to_owned)
        });
    }
}
