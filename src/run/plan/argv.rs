//! Command texts to argv: `--old 'BIN ARGS'` / `--bench 'ARGS {param}'` become the words a
//! command-benchmark child is started with.
//!
//! **No shell by default.** Command texts are split into words with the POSIX shell's quoting
//! rules only (whitespace separates words; `'…'` is literal; `"…"` is literal except `\"`,
//! `\\`, `\$` and `` \` ``; a backslash outside quotes takes the next character literally), with
//! no expansion of `$VAR`, globs, `;`, `|` or redirections. Placeholders `{key}` are substituted
//! **inside each word after splitting**, so a value such as `; rm -rf x` stays one argument.
//! `{{` and `}}` are literal braces; braces around anything that is not a parameter name
//! (`{}`, `{a b}`) stay as they are. With `--shell` the line goes to `sh -c` instead and every
//! substituted value is single-quoted.

use crate::run::child::command::SHELL;

/// Splits `text` into words with shell quoting rules and no expansions (see the module notes).
///
/// # Errors
/// A message for an unterminated quote or a trailing backslash.
pub fn split_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err(format!("{text:?}: unterminated single quote")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => cur.push(c),
                            Some('\n') => {}
                            Some(c) => {
                                cur.push('\\');
                                cur.push(c);
                            }
                            None => return Err(format!("{text:?}: unterminated double quote")),
                        },
                        Some(c) => cur.push(c),
                        None => return Err(format!("{text:?}: unterminated double quote")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some('\n') => {}
                    Some(c) => cur.push(c),
                    None => return Err(format!("{text:?}: ends with a lone backslash")),
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// Quotes `s` for `sh`: `'…'`, with each `'` written `'\''`.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
    {
        return s.to_owned();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The parameter names used as `{key}` in `text`, in order of first use.
pub fn placeholders(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    substitute_with(text, &mut |k| {
        if !out.iter().any(|o| o == k) {
            out.push(k.to_owned());
        }
        None
    });
    out
}

/// Replaces every `{key}` for which `value(key)` is `Some`; `{{`/`}}` become `{`/`}`.
pub fn substitute(text: &str, value: &dyn Fn(&str) -> Option<String>) -> String {
    substitute_with(text, &mut |k| value(k))
}

fn substitute_with(text: &str, value: &mut dyn FnMut(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push(if tail.starts_with('{') { '{' } else { '}' });
            rest = &tail[2..];
            continue;
        }
        if tail.starts_with('{')
            && let Some(end) = tail.find('}')
        {
            let key = &tail[1..end];
            if crate::run::plan::matrix::check_key(key).is_ok() {
                match value(key) {
                    Some(v) => out.push_str(&v),
                    None => out.push_str(&tail[..=end]),
                }
                rest = &tail[end + 1..];
                continue;
            }
        }
        out.push_str(&tail[..1]);
        rest = &tail[1..];
    }
    out.push_str(rest);
    out
}

/// Builds the argv of one run: `prefix` (the binary's words, e.g. `gzip -1`) then the words of
/// `template` with `{key}` replaced by the values of `combo`. With `shell` the result is
/// `["/bin/sh", "-c", LINE]`, where LINE is the prefix and template with shell-quoted values.
///
/// # Errors
/// A message for bad quoting in `template`.
pub fn build_argv(
    prefix: &[String],
    template: &str,
    combo: &[(String, String)],
    shell: bool,
) -> Result<Vec<String>, String> {
    let lookup = |k: &str| combo.iter().find(|(ck, _)| ck == k).map(|(_, v)| v.clone());
    if shell {
        let mut line: Vec<String> = prefix.iter().map(|w| shell_quote(w)).collect();
        line.push(substitute(template, &|k| {
            lookup(k).map(|v| shell_quote(&v))
        }));
        return Ok(vec![SHELL.to_owned(), "-c".to_owned(), line.join(" ")]);
    }
    let mut argv = prefix.to_vec();
    for w in split_words(template)? {
        argv.push(substitute(&w, &lookup));
    }
    Ok(argv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words() {
        assert_eq!(
            split_words(r#"a 'b c' "d \"e\" \$f" g\ h '' x"y"z"#).unwrap(),
            vec!["a", "b c", "d \"e\" $f", "g h", "", "xyz"]
        );
        assert_eq!(split_words("  ").unwrap(), Vec::<String>::new());
        assert!(split_words("'open").is_err());
        assert!(split_words("\"open").is_err());
        assert!(split_words("x\\").is_err());
        assert_eq!(
            split_words("a;b $HOME *").unwrap(),
            vec!["a;b", "$HOME", "*"]
        );
    }

    #[test]
    fn placeholders_stay_one_argument() {
        let combo = vec![("x".to_owned(), "; rm -rf x".to_owned())];
        let argv = build_argv(&["prog".into()], "--v={x} {x} {} {{x}} {y}", &combo, false).unwrap();
        assert_eq!(
            argv,
            vec!["prog", "--v=; rm -rf x", "; rm -rf x", "{}", "{x}", "{y}"]
        );
        let sh = build_argv(&["my prog".into()], "-n {x}", &combo, true).unwrap();
        assert_eq!(sh[2], "'my prog' -n '; rm -rf x'");
        assert_eq!(placeholders("{a} {b} {a} {{c}} {}"), vec!["a", "b"]);
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }
}
