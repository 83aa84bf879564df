// The comment upsert against a GitHub API served on loopback by this test: the server holds a
// pull request's comments and answers list (paginated, with a Link header), create and update
// with the recorded comment object of testdata/comment.json. Run: node --test action/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { upsertComment, markerLine, commentBody, MAX_BODY } from './upsert-comment.mjs';

const recorded = JSON.parse(readFileSync(new URL('./testdata/comment.json', import.meta.url), 'utf8'));
const TOKEN = 'test-token';
const REPO = 'octo-org/octo-repo';
const PR = 7;

/** A GitHub API for one repository's pull request `PR`, holding `comments` (bodies). */
async function fakeGitHub(bodies) {
  const comments = bodies.map((body, i) => ({ ...recorded, id: i + 1, body }));
  const requests = [];
  let nextId = comments.length + 1;
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      const url = new URL(req.url, 'http://x');
      requests.push(`${req.method} ${url.pathname}${url.search}`);
      const send = (status, body, headers = {}) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
        res.end(JSON.stringify(body));
      };
      if (req.headers.authorization !== `Bearer ${TOKEN}`) {
        return send(401, { message: 'Bad credentials' });
      }
      const base = `http://${req.headers.host}`;
      const view = (c) => ({
        ...c,
        url: `${base}/repos/${REPO}/issues/comments/${c.id}`,
        html_url: `https://github.com/${REPO}/pull/${PR}#issuecomment-${c.id}`,
      });
      const list = url.pathname === `/repos/${REPO}/issues/${PR}/comments`;
      if (req.method === 'GET' && list) {
        const per = Number(url.searchParams.get('per_page') || 30);
        const page = Number(url.searchParams.get('page') || 1);
        const slice = comments.slice((page - 1) * per, page * per);
        const headers = {};
        if (page * per < comments.length) {
          headers.link = `<${base}${url.pathname}?per_page=${per}&page=${page + 1}>; rel="next"`;
        }
        return send(200, slice.map(view), headers);
      }
      if (req.method === 'POST' && list) {
        assert.equal(req.headers['content-type'], 'application/json');
        const c = { ...recorded, id: nextId++, body: JSON.parse(data).body };
        comments.push(c);
        return send(201, view(c));
      }
      const m = url.pathname.match(new RegExp(`^/repos/${REPO}/issues/comments/(\\d+)$`));
      if (req.method === 'PATCH' && m) {
        const c = comments.find((x) => x.id === Number(m[1]));
        if (!c) {
          return send(404, { message: 'Not Found' });
        }
        c.body = JSON.parse(data).body;
        c.updated_at = '2026-11-30T11:00:00Z';
        return send(200, view(c));
      }
      return send(404, { message: 'Not Found' });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const api = `http://127.0.0.1:${server.address().port}`;
  return { api, comments, requests, close: () => new Promise((r) => server.close(r)) };
}

test('first push creates the comment, the second updates it, another marker creates another', async () => {
  // 120 comments of people already: the marker search must read past the first page.
  const gh = await fakeGitHub(Array.from({ length: 120 }, (_, i) => `comment ${i}`));
  try {
    const push = (marker, report) =>
      upsertComment({ api: gh.api, token: TOKEN, repo: REPO, issue: PR, marker, report });

    const first = await push('benchdiff', 'report of push 1');
    assert.equal(first.action, 'created');
    assert.equal(gh.comments.length, 121);
    assert.equal(gh.comments[120].body, `${markerLine('benchdiff')}\nreport of push 1`);

    const second = await push('benchdiff', 'report of push 2');
    assert.deepEqual([second.action, second.id], ['updated', first.id]);
    assert.equal(gh.comments.length, 121);
    assert.equal(gh.comments[120].body, `${markerLine('benchdiff')}\nreport of push 2`);

    const third = await push('benchdiff-node-22', 'another suite');
    assert.equal(third.action, 'created');
    assert.notEqual(third.id, first.id);
    assert.equal(gh.comments.length, 122);
    // The first comment is untouched by the other marker's.
    assert.equal(gh.comments[120].body, `${markerLine('benchdiff')}\nreport of push 2`);

    assert.deepEqual(gh.requests, [
      `GET /repos/${REPO}/issues/${PR}/comments?per_page=100`,
      `GET /repos/${REPO}/issues/${PR}/comments?per_page=100&page=2`,
      `POST /repos/${REPO}/issues/${PR}/comments`,
      `GET /repos/${REPO}/issues/${PR}/comments?per_page=100`,
      `GET /repos/${REPO}/issues/${PR}/comments?per_page=100&page=2`,
      `PATCH /repos/${REPO}/issues/comments/121`,
      `GET /repos/${REPO}/issues/${PR}/comments?per_page=100`,
      `GET /repos/${REPO}/issues/${PR}/comments?per_page=100&page=2`,
      `POST /repos/${REPO}/issues/${PR}/comments`,
    ]);
  } finally {
    await gh.close();
  }
});

test('a failed request names the method, path and status', async () => {
  const gh = await fakeGitHub([]);
  try {
    await assert.rejects(
      upsertComment({ api: gh.api, token: 'wrong', repo: REPO, issue: PR, marker: 'm', report: 'r' }),
      /GET \/repos\/octo-org\/octo-repo\/issues\/7\/comments\?per_page=100: HTTP 401: .*Bad credentials/,
    );
  } finally {
    await gh.close();
  }
});

test('a report longer than GitHub allows is cut with a note', () => {
  const body = commentBody('m', 'x'.repeat(MAX_BODY * 2));
  assert.equal(body.length, MAX_BODY);
  assert.match(body, /^<!-- benchdiff:m -->\n/);
  assert.match(body, /whole report is in the job summary\)\n$/);
});
