// Creates or updates one pull-request comment, found by a marker, through the GitHub REST API
// (issue comments): the comment whose body contains `<!-- benchdiff:MARKER -->` is edited;
// when there is none, a new comment is created. A workflow that runs on every push thus keeps
// one comment per marker up to date instead of adding one per push.
//
// Command line (the action's comment step):
//   node upsert-comment.mjs BODY_FILE
// with GITHUB_API_URL, GITHUB_REPOSITORY (owner/name), GITHUB_TOKEN, BENCHDIFF_PR (the pull
// request number) and BENCHDIFF_MARKER set. Prints `created URL` or `updated URL`.

import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

/** GitHub's limit on a comment body, in characters. */
export const MAX_BODY = 65536;

/** The hidden line that identifies the comment of `marker`. */
export function markerLine(marker) {
  return `<!-- benchdiff:${marker} -->`;
}

/** The comment body: the marker line, then `report`, cut to GitHub's limit with a note. */
export function commentBody(marker, report) {
  const head = `${markerLine(marker)}\n`;
  const note = '\n\n… (cut to GitHub\'s comment limit; the whole report is in the job summary)\n';
  if (head.length + report.length <= MAX_BODY) {
    return head + report;
  }
  return head + report.slice(0, MAX_BODY - head.length - note.length) + note;
}

async function request(api, token, method, path, body) {
  const res = await fetch(`${api}${path}`, {
    method,
    headers: {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${token}`,
      'x-github-api-version': '2022-11-28',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) {
    const text = await res.text();
    throw new Error(`${method} ${path}: HTTP ${res.status}: ${text.slice(0, 500)}`);
  }
  return { json: await res.json(), link: res.headers.get('link') };
}

/** The path of the `rel="next"` page of a Link header, or null. */
function nextPage(api, link) {
  const m = link && link.split(',').map((p) => p.match(/<([^>]+)>;\s*rel="next"/)).find(Boolean);
  return m ? m[1].replace(api, '') : null;
}

/**
 * Creates or updates the comment of `marker` on pull request (issue) `issue` of `repo`.
 * `api` is the REST API's base URL (GITHUB_API_URL). Returns { action: 'created' | 'updated',
 * id, url }. Throws with the method, path and HTTP status when a request fails.
 */
export async function upsertComment({ api, token, repo, issue, marker, report }) {
  const body = commentBody(marker, report);
  const line = markerLine(marker);
  let path = `/repos/${repo}/issues/${issue}/comments?per_page=100`;
  let found = null;
  while (path && !found) {
    const page = await request(api, token, 'GET', path);
    found = page.json.find((c) => typeof c.body === 'string' && c.body.includes(line)) || null;
    path = nextPage(api, page.link);
  }
  if (found) {
    const { json } = await request(api, token, 'PATCH', `/repos/${repo}/issues/comments/${found.id}`, { body });
    return { action: 'updated', id: json.id, url: json.html_url };
  }
  const { json } = await request(api, token, 'POST', `/repos/${repo}/issues/${issue}/comments`, { body });
  return { action: 'created', id: json.id, url: json.html_url };
}

async function main() {
  const need = (name) => {
    const v = process.env[name];
    if (!v) {
      throw new Error(`${name} is not set`);
    }
    return v;
  };
  const report = await readFile(process.argv[2], 'utf8');
  const r = await upsertComment({
    api: (process.env.GITHUB_API_URL || 'https://api.github.com').replace(/\/$/, ''),
    token: need('GITHUB_TOKEN'),
    repo: need('GITHUB_REPOSITORY'),
    issue: need('BENCHDIFF_PR'),
    marker: process.env.BENCHDIFF_MARKER || 'benchdiff',
    report,
  });
  console.log(`${r.action} ${r.url}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(`benchdiff comment: ${e.message}`);
    process.exit(1);
  });
}
