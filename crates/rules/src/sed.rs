//! A reader for sed programs: the commands a program runs, as the seds in use read it.
//!
//! They read some programs differently: GNU sed 4.9 and BSD sed skip bracket expressions before
//! looking for the delimiter that ends a regex (`s/[/]/x/`), older GNU seds do not; GNU sed ends
//! a label at a blank, `;` or `}`, BSD sed at the end of the line (`b end;w x`). A program is
//! read every way. The GNU 4.9 reading must succeed — it accepts everything GNU sed 4.9 does
//! (blanks before `s` flags and address modifiers, `\` as a delimiter), so its failure is never
//! a way to let another reading decide — and the commands are the union of it and of the other
//! readings that succeed (one that fails is a program that sed refuses). A program the GNU
//! reading cannot follow has no commands the reader can name: the caller treats it as unsafe
//! (fail closed).

/// The ways a program is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dialect {
    /// GNU sed 4.9.
    Gnu,
    /// BSD sed (macOS, FreeBSD).
    Bsd,
    /// GNU sed before bracket expressions were skipped.
    OldGnu,
}

/// What a program does besides editing its input, in every reading that succeeds: the files
/// it writes and reads and the command lines it runs, each as sed names them (no tilde or
/// variable expansion: sed opens the name as it is written, relative to its working directory).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effects {
    /// The command letters, and the flags of its `s` commands (`s/a/b/w FILE` gives `s` and
    /// `w`).
    pub commands: Vec<char>,
    /// The files `w`, `W` and `s///w` write (sed creates or empties each when it starts).
    pub writes: Vec<String>,
    /// The files `r` and `R` read into the output.
    pub reads: Vec<String>,
    /// The command lines `e COMMAND` runs with `/bin/sh -c`.
    pub runs: Vec<String>,
    /// Whether it runs text it computes as a command (`e` alone runs the pattern space,
    /// `s///e` the result of the substitution): code the gate cannot know.
    pub runs_input: bool,
}

impl Effects {
    fn add(&mut self, other: Self) {
        for c in other.commands {
            if !self.commands.contains(&c) {
                self.commands.push(c);
            }
        }
        for (mine, theirs) in [
            (&mut self.writes, other.writes),
            (&mut self.reads, other.reads),
            (&mut self.runs, other.runs),
        ] {
            for item in theirs {
                if !mine.contains(&item) {
                    mine.push(item);
                }
            }
        }
        self.runs_input |= other.runs_input;
    }
}

/// What `program` does (see [`Effects`]), in every reading that succeeds; `None` when the GNU
/// 4.9 reading fails: a command, address or delimiter the reader does not know, an
/// unterminated part, or a missing file name.
///
/// ```
/// use shellgate_rules::sed::effects;
///
/// let e = effects("s/x/y/w out.txt\n$r /etc/hosts\n1e date").unwrap();
/// assert_eq!(e.writes, ["out.txt"]);
/// assert_eq!(e.reads, ["/etc/hosts"]);
/// assert_eq!(e.runs, ["date"]);
/// assert!(!e.runs_input);
/// assert!(effects("s/x/y/e").unwrap().runs_input);
/// assert_eq!(effects("w"), None);
/// ```
#[must_use]
pub fn effects(program: &str) -> Option<Effects> {
    let mut all = read(program, Dialect::Gnu)?;
    for dialect in [Dialect::Bsd, Dialect::OldGnu] {
        if let Some(more) = read(program, dialect) {
            all.add(more);
        }
    }
    Some(all)
}

/// The command letters of `program` and the flags of its `s` commands (`s/a/b/w FILE` gives
/// `s` and `w`), in every reading that succeeds; `None` when the GNU 4.9 reading fails (see
/// [`effects`]).
///
/// ```
/// use shellgate_rules::sed::commands;
///
/// assert_eq!(commands("s/a/b/g; 2p"), Some(vec!['s', 'p']));
/// assert_eq!(commands("/x/a\\\nreturn 1"), Some(vec!['a']));
/// assert_eq!(commands("s/x/y/w out.txt"), Some(vec!['s', 'w']));
/// assert_eq!(commands(":a;w /tmp/x"), Some(vec![':', 'w']));
/// assert_eq!(commands("s/[/]/x/"), Some(vec!['s']));
/// assert_eq!(commands("s/x/y"), None);
/// ```
#[must_use]
pub fn commands(program: &str) -> Option<Vec<char>> {
    effects(program).map(|e| e.commands)
}

/// A program's reader: its characters and the position.
struct Reader {
    chars: Vec<char>,
    at: usize,
    dialect: Dialect,
}

/// What `program` does in one dialect.
fn read(program: &str, dialect: Dialect) -> Option<Effects> {
    let mut r = Reader {
        chars: program.chars().collect(),
        at: 0,
        dialect,
    };
    let mut effects = Effects::default();
    let push = |c: char, effects: &mut Effects| {
        if !effects.commands.contains(&c) {
            effects.commands.push(c);
        }
    };
    let mut depth = 0usize;
    loop {
        r.skip(|c| c.is_whitespace() || c == ';');
        let Some(c) = r.peek() else {
            break;
        };
        if c == '#' {
            r.skip(|c| c != '\n');
            continue;
        }
        if c == '}' {
            r.at += 1;
            depth = depth.checked_sub(1)?;
            r.end_of_command()?;
            continue;
        }
        if r.address()? {
            r.skip_blanks();
            if r.peek() == Some(',') {
                r.at += 1;
                r.skip_blanks();
                if matches!(r.peek(), Some('+' | '~')) {
                    r.at += 1;
                    r.digits()?;
                } else if !r.address()? {
                    return None;
                }
            }
        }
        r.skip_blanks();
        while r.peek() == Some('!') {
            r.at += 1;
            r.skip_blanks();
        }
        let command = r.next()?;
        if command != '{' {
            push(command, &mut effects);
        }
        match command {
            '{' => {
                depth += 1;
                continue;
            }
            '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | 'F' => {}
            'l' | 'L' | 'q' | 'Q' => {
                r.skip_blanks();
                r.skip(|c| c.is_ascii_digit());
            }
            ':' | 'b' | 't' | 'T' | 'v' => {
                r.skip_blanks();
                let start = r.at;
                r.label();
                if command == ':' && r.at == start {
                    return None;
                }
                continue;
            }
            'a' | 'i' | 'c' => {
                r.text();
                continue;
            }
            'r' | 'R' | 'w' | 'W' => {
                let name = r.file_name()?;
                if matches!(command, 'r' | 'R') {
                    effects.reads.push(name);
                } else {
                    effects.writes.push(name);
                }
                continue;
            }
            'e' => {
                r.skip_blanks();
                let line = r.rest_of_line();
                // (GNU sed turns `\x3b`, `\o073`, `\d059`, `\n` into other characters before the
                // shell sees the line: with a backslash in it, the command is not known.)
                if line.is_empty() || line.contains('\\') {
                    effects.runs_input = true;
                } else {
                    effects.runs.push(line);
                }
                continue;
            }
            's' | 'y' => {
                let delimiter = r.next()?;
                if delimiter == '\n' {
                    return None;
                }
                // (`y` has no regex: its brackets are characters.)
                r.delimited(delimiter, command == 's')?;
                r.delimited(delimiter, false)?;
                if command == 's' {
                    // (A `w` flag's file name runs to the end of the line, which ends the
                    // command.)
                    let mut ended = false;
                    while let Some(flag) = r.peek() {
                        match flag {
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' | ' ' | '\t' => {
                                r.at += 1;
                            }
                            'e' => {
                                r.at += 1;
                                push('e', &mut effects);
                                effects.runs_input = true;
                            }
                            'w' => {
                                r.at += 1;
                                effects.writes.push(r.file_name()?);
                                push('w', &mut effects);
                                ended = true;
                                break;
                            }
                            _ => break,
                        }
                    }
                    if ended {
                        continue;
                    }
                }
            }
            _ => return None,
        }
        r.end_of_command()?;
    }
    (depth == 0).then_some(effects)
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    fn skip(&mut self, while_: impl Fn(char) -> bool) {
        while self.peek().is_some_and(&while_) {
            self.at += 1;
        }
    }

    fn skip_blanks(&mut self) {
        self.skip(|c| c == ' ' || c == '\t');
    }

    /// The rest of the line, past the newline that ends it.
    fn rest_of_line(&mut self) -> String {
        let start = self.at;
        self.skip(|c| c != '\n');
        let line = self
            .chars
            .get(start..self.at)
            .unwrap_or_default()
            .iter()
            .collect();
        self.at += 1;
        line
    }

    /// The file name of `r`, `R`, `w`, `W` or `s///w`: after blanks, the rest of the line,
    /// trailing blanks included; none is a program sed refuses, and one with a backslash
    /// (which GNU sed may decode into another name: `\x2f`) is not read.
    fn file_name(&mut self) -> Option<String> {
        self.skip_blanks();
        Some(self.rest_of_line()).filter(|name| !name.is_empty() && !name.contains('\\'))
    }

    /// One or more digits.
    fn digits(&mut self) -> Option<()> {
        let start = self.at;
        self.skip(|c| c.is_ascii_digit());
        (self.at > start).then_some(())
    }

    /// An address, if one starts here: a line number (`3`, `0~4`), `$`, `/RE/` or `\cREc`
    /// with `I`/`M` flags.
    fn address(&mut self) -> Option<bool> {
        match self.peek() {
            Some('0'..='9') => {
                self.digits()?;
                if self.peek() == Some('~') {
                    self.at += 1;
                    self.digits()?;
                }
            }
            Some('$') => self.at += 1,
            Some('/') => {
                self.at += 1;
                self.delimited('/', true)?;
                self.modifiers();
            }
            Some('\\') => {
                self.at += 1;
                let delimiter = self.next()?;
                if delimiter == '\n' || delimiter == '\\' {
                    return None;
                }
                self.delimited(delimiter, true)?;
                self.modifiers();
            }
            _ => return Some(false),
        }
        Some(true)
    }

    /// Skips an address's `I` and `M` modifiers, and blanks among them (`/a/ I p`).
    fn modifiers(&mut self) {
        let start = self.at;
        self.skip(|c| matches!(c, 'I' | 'M' | ' ' | '\t'));
        // (Blanks alone are the command's: leave them.)
        if !self
            .chars
            .get(start..self.at)
            .unwrap_or_default()
            .iter()
            .any(|c| matches!(c, 'I' | 'M'))
        {
            self.at = start;
        }
    }

    /// Skips to the delimiter that ends a part and past it; `regex` parts skip bracket
    /// expressions (not in older GNU seds). A newline or the end of the program first is a
    /// failure. A delimiter that is `\` ends the part wherever it appears, as in GNU sed.
    fn delimited(&mut self, delimiter: char, regex: bool) -> Option<()> {
        loop {
            let c = self.next()?;
            if c == delimiter {
                return Some(());
            } else if c == '\\' {
                self.next()?;
            } else if c == '\n' {
                return None;
            } else if c == '[' && regex && self.dialect != Dialect::OldGnu {
                self.bracket()?;
            }
        }
    }

    /// Skips the rest of a bracket expression (`[^]a[:alpha:]]`) after its `[`.
    fn bracket(&mut self) -> Option<()> {
        if self.peek() == Some('^') {
            self.at += 1;
        }
        if self.peek() == Some(']') {
            self.at += 1;
        }
        loop {
            match self.next()? {
                ']' => return Some(()),
                '\n' => return None,
                '[' if matches!(self.peek(), Some(':' | '.' | '=')) => {
                    let kind = self.next()?;
                    loop {
                        if self.next()? == kind && self.peek() == Some(']') {
                            self.at += 1;
                            break;
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Skips a label: to a blank, `;` or `}` in GNU sed, to the end of the line in BSD sed.
    fn label(&mut self) {
        if self.dialect == Dialect::Bsd {
            self.skip(|c| c != '\n');
        } else {
            self.skip(|c| !c.is_whitespace() && c != ';' && c != '}');
        }
    }

    /// Skips the text of `a`, `i` or `c`: up to the first newline not escaped by a backslash.
    fn text(&mut self) {
        while let Some(c) = self.next() {
            if c == '\\' {
                self.at += 1;
            } else if c == '\n' {
                return;
            }
        }
    }

    /// The end of a command: blanks, then `;`, a newline, `}`, `#` or the end.
    fn end_of_command(&mut self) -> Option<()> {
        self.skip_blanks();
        match self.peek() {
            None | Some(';' | '\n' | '}' | '#') => Some(()),
            Some(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{commands, effects};

    fn cs(program: &str) -> Option<String> {
        commands(program).map(|c| c.into_iter().collect())
    }

    #[test]
    fn reads_commands_addresses_and_blocks() {
        assert_eq!(cs("s/a/b/g").as_deref(), Some("s"));
        assert_eq!(cs("-n").as_deref(), None);
        assert_eq!(cs("1,/^$/d").as_deref(), Some("d"));
        assert_eq!(cs("0~4 p;$!N").as_deref(), Some("pN"));
        assert_eq!(cs("/x/,+3{s|a|b|;p}").as_deref(), Some("sp"));
        assert_eq!(cs("\\%a/b%Id").as_deref(), Some("d"));
        assert_eq!(cs("y/abc/xyz/").as_deref(), Some("y"));
        assert_eq!(cs("10q").as_deref(), Some("q"));
        assert_eq!(cs("l 40").as_deref(), Some("l"));
        assert_eq!(cs("s/a/b/ # note").as_deref(), Some("s"));
        assert_eq!(cs(":a;N;$!ba;s/\\n/ /g").as_deref(), Some(":Nbs"));
        assert_eq!(cs("{p").as_deref(), None);
        assert_eq!(cs("p}").as_deref(), None);
        assert_eq!(cs("s/a/b").as_deref(), None);
        assert_eq!(cs("s/a\nb/c/").as_deref(), None);
        assert_eq!(cs("k").as_deref(), None);
        assert_eq!(cs("pq").as_deref(), None);
    }

    #[test]
    fn text_of_a_i_c_is_not_commands() {
        assert_eq!(
            cs("/def f/i\\\n    return jsonify(x)").as_deref(),
            Some("i")
        );
        assert_eq!(cs("$a hello; w /tmp/x").as_deref(), Some("a"));
        assert_eq!(
            cs("1i\\\nline one\\\nline two\nw /tmp/x").as_deref(),
            Some("iw")
        );
    }

    #[test]
    fn finds_running_writing_and_reading_commands_in_either_dialect() {
        assert_eq!(cs("1etouch /tmp/x").as_deref(), Some("e"));
        assert_eq!(cs("s/x/y/e").as_deref(), Some("se"));
        assert_eq!(cs("s/x/y/gw /home/u/.bashrc").as_deref(), Some("sw"));
        assert_eq!(cs("$r /etc/passwd").as_deref(), Some("r"));
        assert_eq!(cs("/a/,/b/!W out").as_deref(), Some("W"));
        // GNU ends a label at `;`: the `w` is a command there, label text in BSD.
        assert_eq!(cs("b end;w /tmp/x").as_deref(), Some("bw"));
        assert_eq!(cs("b end w /tmp/x").as_deref(), Some("bw"));
        // Newer seds skip a bracket expression, older GNU seds do not: `s/[/]x/e` is an
        // unterminated `s` in GNU 4.9 (not read: unsafe) and `s` with the flag `e` in older ones.
        assert_eq!(cs("s/[/]/x/").as_deref(), Some("s"));
        assert_eq!(cs("s/[/]x/e"), None);
        assert_eq!(cs("s/[/]/x/;e id").as_deref(), Some("se"));
        assert_eq!(cs("/x[^/]*$/d").as_deref(), Some("d"));
        assert_eq!(cs("s/[/]/x/;w /tmp/x").as_deref(), Some("sw"));
        // A block a BSD label swallows the end of is read the GNU way.
        assert_eq!(cs("/a/ { g; bb }; p").as_deref(), Some("gbp"));
        assert_eq!(cs("s/x/y"), None);
    }

    #[test]
    fn reads_what_gnu_sed_accepts_so_no_other_reading_decides() {
        // Blanks before `s` flags, `\` as the delimiter, a blank before an address modifier.
        assert_eq!(cs(":a;s/x/y/ e").as_deref(), Some(":se"));
        assert_eq!(cs("s/[/]/#/ e").as_deref(), Some("se"));
        assert_eq!(cs(":a;s/x/y/ w /tmp/x").as_deref(), Some(":sw"));
        assert_eq!(cs(":a;s\\x\\y\\w /tmp/x").as_deref(), Some(":sw"));
        assert_eq!(cs(":a;/a/ I w /tmp/x").as_deref(), Some(":w"));
        assert_eq!(cs("/a/ p").as_deref(), Some("p"));
        // `y` reads brackets as characters.
        assert_eq!(cs("s/[/]/x/;y/[/]/;e touch x #").as_deref(), Some("sye"));
        // A program GNU sed 4.9 cannot read is not read at all.
        assert_eq!(cs(":a;s/x/y/ k"), None);
    }

    #[test]
    fn names_the_files_written_and_read_and_the_commands_run() {
        let e =
            effects("s/a/b/gw  out file \np\n/x/ r /etc/hosts\n$W ../log\n2e  touch /tmp/x; id")
                .unwrap();
        assert_eq!(e.commands, ['s', 'w', 'p', 'r', 'W', 'e']);
        assert_eq!(e.writes, ["out file ", "../log"]);
        assert_eq!(e.reads, ["/etc/hosts"]);
        assert_eq!(e.runs, ["touch /tmp/x; id"]);
        assert!(!e.runs_input);
        // `;` does not end a file name or a command line; `}` does not either.
        let e = effects("1{w a; p}\n}").unwrap();
        assert_eq!(e.writes, ["a; p}"]);
        // A label BSD sed reads to the end of the line hides nothing GNU sed writes.
        assert_eq!(effects("b end;w /tmp/x").unwrap().writes, ["/tmp/x"]);
        // `e` alone and `s///e` run text the program computes.
        assert!(effects("$e").unwrap().runs_input);
        assert!(effects("s/x/y/ew out").unwrap().runs_input);
        assert_eq!(effects("s/x/y/ew out").unwrap().writes, ["out"]);
        // Escapes GNU sed decodes: the command or the name is not known.
        assert!(effects("1e echo hi\\x3brm -rf ~").unwrap().runs_input);
        assert_eq!(effects("w \\x2fetc\\x2fx"), None);
        // sed refuses a missing file name.
        assert_eq!(effects("r"), None);
        assert_eq!(effects("s/a/b/w "), None);
        assert_eq!(effects("w\np"), None);
    }
}
