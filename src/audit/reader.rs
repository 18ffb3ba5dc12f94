//! Streaming readers for the three input formats.
//!
//! A [`LineReader`] cuts its input into [`Chunk`]s of raw lines (one buffer, one span per line),
//! bounded in lines and bytes, so memory stays flat whatever the file size. Lines are parsed by
//! [`parse_line`] on the rayon workers, borrowing from the chunk's buffer where the JSON has no
//! escapes.
//!
//! - `jsonl`: one JSON object per line with a string `command` and optional string `cwd` and
//!   `audience`; other keys (`timestamp`, `decision`, …) are ignored, so shellgate's own audit
//!   log reads as is.
//! - `lines`: one command per line; blank lines are skipped. A command cannot span lines here.
//! - `claude`: Claude Code session transcripts (`~/.claude/projects/*/*.jsonl`): every line of
//!   `"type": "assistant"` whose `message.content` holds `{"type": "tool_use", "name": "Bash",
//!   "input": {"command": …}}` items gives one record per item, with the line's `cwd`. Other
//!   lines (user turns, tool results, summaries, other tools) are skipped.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, BufRead, Read as _};
use std::path::Path;

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::judge::Record;

/// An input format of `shellgate audit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// JSON objects with `command`, optional `cwd`, `audience` and `timestamp`, one per line.
    Jsonl,
    /// One command per line.
    Lines,
    /// Claude Code session transcripts.
    Claude,
}

impl Format {
    /// The format's name on the command line and in reports.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Jsonl => "jsonl",
            Self::Lines => "lines",
            Self::Claude => "claude",
        }
    }

    /// The format named `name`, if any.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "jsonl" => Some(Self::Jsonl),
            "lines" => Some(Self::Lines),
            "claude" => Some(Self::Claude),
            _ => None,
        }
    }

    /// The format of a file, from its extension and its first non-blank line.
    ///
    /// `.txt` and `.log` are `lines`. `.jsonl` and `.json` are `jsonl`, or `claude` when the
    /// first object has a `type` and no `command` (a transcript's first line is a `summary`,
    /// `user` or `assistant` entry). Any other name (or standard input) is sniffed the same way
    /// when its first non-blank line starts with `{`, and is `lines` otherwise.
    #[must_use]
    pub fn detect(path: Option<&Path>, first_line: Option<&[u8]>) -> Self {
        let extension = path
            .and_then(Path::extension)
            .and_then(|extension| extension.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("txt" | "log") => Self::Lines,
            Some("jsonl" | "json") => first_line.map_or(Self::Jsonl, sniff_json),
            _ => match first_line {
                Some(line) if line.trim_ascii_start().first() == Some(&b'{') => sniff_json(line),
                _ => Self::Lines,
            },
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `claude` when the object has a `type` key and no `command`, else `jsonl`.
fn sniff_json(line: &[u8]) -> Format {
    #[derive(Deserialize)]
    struct Probe {
        command: Option<IgnoredAny>,
        #[serde(rename = "type")]
        kind: Option<IgnoredAny>,
    }
    match serde_json::from_slice::<Probe>(line) {
        Ok(Probe {
            command: None,
            kind: Some(_),
        }) => Format::Claude,
        _ => Format::Jsonl,
    }
}

/// Why a line could not be read as a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Malformed {
    /// The line is not UTF-8.
    NotUtf8,
    /// The line is longer than the reader's limit and was skipped unread.
    TooLong {
        /// The limit in bytes.
        limit: usize,
    },
    /// The line is not a JSON object of the expected shape (serde's message).
    Invalid(String),
    /// A `jsonl` object without a `command`.
    MissingCommand,
    /// A Claude `Bash` tool use without a string `input.command`.
    BashWithoutCommand,
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotUtf8 => f.write_str("not valid UTF-8"),
            Self::TooLong { limit } => write!(f, "longer than {limit} bytes, skipped"),
            Self::Invalid(message) => write!(f, "not a valid record: {message}"),
            Self::MissingCommand => f.write_str("no `command` string"),
            Self::BashWithoutCommand => {
                f.write_str("a `Bash` tool use without an `input.command` string")
            }
        }
    }
}

/// What one line gave.
#[derive(Debug)]
pub(crate) enum Parsed<'a> {
    /// Nothing to judge (blank line, or a transcript line without a `Bash` tool use).
    Skip,
    /// One record.
    One(Record<'a>),
    /// Several records (a transcript line with several `Bash` tool uses).
    Many(Vec<Record<'a>>),
    /// A malformed line.
    Malformed(Malformed),
}

/// Parses one line (without its line terminator) of the given format.
pub(crate) fn parse_line(format: Format, line: u64, bytes: &[u8]) -> Parsed<'_> {
    match format {
        Format::Lines => parse_plain(line, bytes),
        Format::Jsonl => parse_jsonl(line, bytes),
        Format::Claude => parse_claude(line, bytes),
    }
}

fn parse_plain(line: u64, bytes: &[u8]) -> Parsed<'_> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Parsed::Malformed(Malformed::NotUtf8);
    };
    if text.trim().is_empty() {
        return Parsed::Skip;
    }
    Parsed::One(Record {
        line,
        command: Cow::Borrowed(text),
        cwd: None,
        audience: None,
    })
}

/// A JSON string that borrows from the input when it has no escapes. (serde's own `Cow<str>`
/// only borrows as a direct field, not inside an `Option`.)
struct Text<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                v: &'de str,
            ) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

fn text(value: Option<Text<'_>>) -> Option<Cow<'_, str>> {
    value.map(|Text(text)| text)
}

#[derive(Deserialize)]
struct JsonRecord<'a> {
    #[serde(borrow, default)]
    command: Option<Text<'a>>,
    #[serde(borrow, default)]
    cwd: Option<Text<'a>>,
    #[serde(borrow, default)]
    audience: Option<Text<'a>>,
}

fn parse_jsonl(line: u64, bytes: &[u8]) -> Parsed<'_> {
    if bytes.trim_ascii().is_empty() {
        return Parsed::Skip;
    }
    match serde_json::from_slice::<JsonRecord<'_>>(bytes) {
        Ok(JsonRecord {
            command: Some(Text(command)),
            cwd,
            audience,
        }) => Parsed::One(Record {
            line,
            command,
            cwd: text(cwd),
            audience: text(audience),
        }),
        Ok(JsonRecord { command: None, .. }) => Parsed::Malformed(Malformed::MissingCommand),
        Err(error) => Parsed::Malformed(json_error(&error, bytes)),
    }
}

fn json_error(error: &serde_json::Error, bytes: &[u8]) -> Malformed {
    if std::str::from_utf8(bytes).is_err() {
        Malformed::NotUtf8
    } else {
        Malformed::Invalid(error.to_string())
    }
}

#[derive(Deserialize)]
struct ClaudeLine<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Text<'a>>,
    #[serde(borrow, default)]
    cwd: Option<Text<'a>>,
    #[serde(default)]
    message: Option<ClaudeMessage>,
}

#[derive(Deserialize)]
struct ClaudeMessage {
    #[serde(default)]
    content: Option<serde_json::Value>,
}

/// Transcript lines are written compactly by Claude Code, so a line holding a tool use holds
/// this byte string; the many lines without it (user turns, tool results) are skipped unparsed.
const TOOL_USE_MARKER: &[u8] = b"\"tool_use\"";

fn parse_claude(line: u64, bytes: &[u8]) -> Parsed<'_> {
    if bytes.trim_ascii().is_empty() || !contains(bytes, TOOL_USE_MARKER) {
        return Parsed::Skip;
    }
    let parsed = match serde_json::from_slice::<ClaudeLine<'_>>(bytes) {
        Ok(parsed) => parsed,
        Err(error) => return Parsed::Malformed(json_error(&error, bytes)),
    };
    if parsed.kind.as_ref().map(|Text(kind)| &**kind) != Some("assistant") {
        return Parsed::Skip;
    }
    let Some(serde_json::Value::Array(items)) = parsed.message.and_then(|message| message.content)
    else {
        return Parsed::Skip;
    };
    let cwd = text(parsed.cwd);
    let mut records = Vec::new();
    for item in &items {
        let field = |name: &str| item.get(name).and_then(serde_json::Value::as_str);
        if field("type") != Some("tool_use") || field("name") != Some("Bash") {
            continue;
        }
        let Some(command) = item
            .get("input")
            .and_then(|input| input.get("command"))
            .and_then(serde_json::Value::as_str)
        else {
            return Parsed::Malformed(Malformed::BashWithoutCommand);
        };
        records.push(Record {
            line,
            command: Cow::Owned(command.to_owned()),
            cwd: cwd.clone(),
            audience: None,
        });
    }
    match records.len() {
        0 => Parsed::Skip,
        1 => records.pop().map_or(Parsed::Skip, Parsed::One),
        _ => Parsed::Many(records),
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// One raw line of a chunk: its number and its byte range in the chunk's buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawLine {
    /// 1-based line number in its file.
    pub no: u64,
    start: usize,
    end: usize,
    /// The line was longer than the limit; its bytes were skipped.
    pub too_long: bool,
}

/// A batch of raw lines from one source.
#[derive(Debug, Default)]
pub(crate) struct Chunk {
    bytes: Vec<u8>,
    /// The lines, in order.
    pub lines: Vec<RawLine>,
}

impl Chunk {
    /// The bytes of `line`.
    pub(crate) fn text(&self, line: &RawLine) -> &[u8] {
        self.bytes.get(line.start..line.end).unwrap_or(&[])
    }

    /// The first line that is not blank, if any.
    pub(crate) fn first_non_blank(&self) -> Option<&[u8]> {
        self.lines
            .iter()
            .filter(|line| !line.too_long)
            .map(|line| self.text(line))
            .find(|text| !text.trim_ascii().is_empty())
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.lines.clear();
    }
}

/// Limits of one chunk.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChunkLimits {
    /// At most this many lines.
    pub lines: usize,
    /// Stop adding lines once the buffer holds this many bytes.
    pub bytes: usize,
    /// Lines longer than this are skipped unread and reported.
    pub line_bytes: usize,
}

/// Reads lines from one input into chunks.
pub(crate) struct LineReader<R> {
    inner: R,
    next_no: u64,
    consumed: u64,
    eof: bool,
}

impl<R: BufRead> LineReader<R> {
    /// A reader over `inner`, starting at line 1.
    pub(crate) const fn new(inner: R) -> Self {
        Self {
            inner,
            next_no: 1,
            consumed: 0,
            eof: false,
        }
    }

    /// Bytes consumed so far.
    pub(crate) const fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Refills `chunk` with the next lines; returns `false` once the input is exhausted and the
    /// chunk is empty.
    pub(crate) fn fill(&mut self, chunk: &mut Chunk, limits: ChunkLimits) -> io::Result<bool> {
        chunk.clear();
        // One allocation of the whole budget (plus room for the line that crosses it), rather
        // than letting doubling overshoot it.
        chunk.bytes.reserve(
            limits
                .bytes
                .saturating_add(64 * 1024)
                .min(limits.bytes.saturating_mul(2)),
        );
        chunk.lines.reserve(limits.lines);
        while !self.eof && chunk.lines.len() < limits.lines && chunk.bytes.len() < limits.bytes {
            let start = chunk.bytes.len();
            let cap = u64::try_from(limits.line_bytes)
                .unwrap_or(u64::MAX)
                .saturating_add(1);
            let read = (&mut self.inner)
                .take(cap)
                .read_until(b'\n', &mut chunk.bytes)?;
            if read == 0 {
                self.eof = true;
                break;
            }
            self.consumed = self.consumed.saturating_add(read as u64);
            let mut too_long = false;
            if chunk.bytes.last() == Some(&b'\n') {
                chunk.bytes.pop();
                if chunk.bytes.len() > start && chunk.bytes.last() == Some(&b'\r') {
                    chunk.bytes.pop();
                }
            } else if read as u64 >= cap {
                // No newline within the limit: drop what we have and skip to the next line.
                chunk.bytes.truncate(start);
                let skipped = self.inner.skip_until(b'\n')?;
                self.consumed = self.consumed.saturating_add(skipped as u64);
                too_long = true;
            }
            chunk.lines.push(RawLine {
                no: self.next_no,
                start,
                end: chunk.bytes.len(),
                too_long,
            });
            self.next_no = self.next_no.saturating_add(1);
        }
        Ok(!chunk.lines.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chunks `input` is read in: each line as `NO="TEXT"` (`!` after it when too long),
    /// chunks separated by ` | `.
    fn chunks_of(input: &str, limits: ChunkLimits) -> String {
        let mut reader = LineReader::new(input.as_bytes());
        let mut chunk = Chunk::default();
        let mut out = Vec::new();
        while reader.fill(&mut chunk, limits).unwrap() {
            let lines: Vec<String> = chunk
                .lines
                .iter()
                .map(|line| {
                    let text = String::from_utf8(chunk.text(line).to_vec()).unwrap();
                    let long = if line.too_long { "!" } else { "" };
                    format!("{}={text:?}{long}", line.no)
                })
                .collect();
            out.push(lines.join(" "));
        }
        out.join(" | ")
    }

    const SMALL: ChunkLimits = ChunkLimits {
        lines: 2,
        bytes: 1 << 20,
        line_bytes: 8,
    };

    /// Chunks of at most two lines, each line at most 8 bytes (a longer one is kept empty and
    /// marked).
    #[test]
    fn chunks_split_lines_and_strip_terminators() {
        let cases = [
            (
                "ls\r\ngit status\n\nlast",
                r#"1="ls" 2=""! | 3="" 4="last""#,
            ),
            // A line of exactly the limit is kept.
            (
                "12345678\n123456789\nok\n",
                r#"1="12345678" 2=""! | 3="ok""#,
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(chunks_of(input, SMALL), expected, "{input:?}");
        }
    }

    #[test]
    fn detects_formats() {
        let claude = br#"{"type":"summary","summary":"x","leafUuid":"u"}"#;
        let jsonl = br#"{"command":"ls","type":"shell"}"#;
        let json_path = Path::new("log.jsonl");
        assert_eq!(
            Format::detect(Some(json_path), Some(claude)),
            Format::Claude
        );
        assert_eq!(Format::detect(Some(json_path), Some(jsonl)), Format::Jsonl);
        assert_eq!(Format::detect(Some(json_path), None), Format::Jsonl);
        assert_eq!(
            Format::detect(Some(json_path), Some(b"garbage")),
            Format::Jsonl
        );
        assert_eq!(
            Format::detect(Some(Path::new("a.LOG")), Some(jsonl)),
            Format::Lines
        );
        assert_eq!(
            Format::detect(Some(Path::new("a.txt")), Some(claude)),
            Format::Lines
        );
        assert_eq!(
            Format::detect(None, Some(b"  {\"command\":\"ls\"}")),
            Format::Jsonl
        );
        assert_eq!(Format::detect(None, Some(claude)), Format::Claude);
        assert_eq!(
            Format::detect(Some(Path::new("cmds")), Some(b"ls -la")),
            Format::Lines
        );
    }

    #[test]
    fn jsonl_records_borrow_and_report_problems() {
        let Parsed::One(record) = parse_line(
            Format::Jsonl,
            3,
            br#"{"command":"ls -la","cwd":"/p","timestamp":5}"#,
        ) else {
            panic!("expected a record");
        };
        assert!(matches!(record.command, Cow::Borrowed("ls -la")));
        assert_eq!(record.cwd.as_deref(), Some("/p"));
        assert_eq!(record.line, 3);
        let Parsed::One(escaped) = parse_line(Format::Jsonl, 1, br#"{"command":"echo \"hi\""}"#)
        else {
            panic!("expected a record");
        };
        assert_eq!(escaped.command, "echo \"hi\"");
        assert!(matches!(
            parse_line(Format::Jsonl, 1, br#"{"cwd":"/p"}"#),
            Parsed::Malformed(Malformed::MissingCommand)
        ));
        let Parsed::Malformed(Malformed::Invalid(message)) =
            parse_line(Format::Jsonl, 1, br#"{"command":5}"#)
        else {
            panic!("expected an invalid record");
        };
        assert!(
            message.starts_with("invalid type: integer `5`, expected a string"),
            "{message}"
        );
        assert!(matches!(
            parse_line(Format::Jsonl, 1, b"{\"command\":\"ls\""),
            Parsed::Malformed(Malformed::Invalid(_))
        ));
        assert!(matches!(parse_line(Format::Jsonl, 1, b"  "), Parsed::Skip));
        assert!(matches!(
            parse_line(Format::Lines, 1, b"\xff\xfe"),
            Parsed::Malformed(Malformed::NotUtf8)
        ));
    }

    #[test]
    fn claude_lines_give_one_record_per_bash_tool_use() {
        let line = br#"{"type":"assistant","cwd":"/w","message":{"content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"a","name":"Bash","input":{"command":"ls"}},{"type":"tool_use","id":"b","name":"Read","input":{"file_path":"/x"}},{"type":"tool_use","id":"c","name":"Bash","input":{"command":"pwd"}}]}}"#;
        let Parsed::Many(records) = parse_line(Format::Claude, 9, line) else {
            panic!("expected two records");
        };
        let got: Vec<(&str, Option<&str>, u64)> = records
            .iter()
            .map(|r| (&*r.command, r.cwd.as_deref(), r.line))
            .collect();
        assert_eq!(got, vec![("ls", Some("/w"), 9), ("pwd", Some("/w"), 9)]);

        let result = br#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"x"}]}}"#;
        assert!(matches!(
            parse_line(Format::Claude, 1, result),
            Parsed::Skip
        ));
        let user = br#"{"type":"user","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"ls"}}]}}"#;
        assert!(matches!(parse_line(Format::Claude, 1, user), Parsed::Skip));
        let bad = br#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{}}]}}"#;
        assert!(matches!(
            parse_line(Format::Claude, 1, bad),
            Parsed::Malformed(Malformed::BashWithoutCommand)
        ));
        assert!(matches!(
            parse_line(Format::Claude, 1, br#"{"type":"tool_use""#),
            Parsed::Malformed(Malformed::Invalid(_))
        ));
    }
}
