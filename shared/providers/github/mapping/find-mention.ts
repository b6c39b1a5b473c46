/**
 * Does `body` @-mention `login`? The code host's own rule (its MentionFilter): `@login`
 * preceded by the start or a non-word character, not followed by another login character
 * (`@bob` is not `@bobby`, nor `@bob-x`), not by `/` (`@org/team` is a team), and dots only
 * at the end of a sentence (`@bob.` yes, `@bob.com` no). An e-mail address (`x@bob.com`)
 * is preceded by a word character. Case-insensitive, like logins. Mentions inside code
 * (fenced blocks and inline spans) are not mentions: the code host does not link them.
 */
export function mentions(body: string | null | undefined, login: string): boolean {
  if (!body || !login) return false;
  const pattern = new RegExp(`(?<![A-Za-z0-9_])@${escapeRegExp(login)}(?![A-Za-z0-9_/-])(?!\\.+[A-Za-z0-9_])`, 'i');
  return pattern.test(withoutCode(body));
}

/** A mention that `body` makes and `before` did not (an edit that adds the mention). */
export function newlyMentions(body: string | null | undefined, before: string | null | undefined, login: string): boolean {
  return mentions(body, login) && !mentions(before, login);
}

function withoutCode(body: string): string {
  return body.replace(/^ {0,3}(```|~~~)[^\n]*\n[\s\S]*?(?:^ {0,3}\1[^\n]*$|(?![\s\S]))/gm, ' ').replace(/`[^`\n]*`/g, ' ');
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
