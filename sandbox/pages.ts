import type { FastifyInstance, FastifyReply } from 'fastify';
import { PLANS, PLAN_NAMES } from './plans';
import type { StoredDecision } from './decisions';
import type { SandboxStore, StoredRun } from './store';

/**
 * The pages behind the links the sandbox hands out, under `/app`: a pending run's `review_url`
 * (`/app/reviews/<run_id>`) and a quota error's `upgrade_url` (`/app/settings/billing`). The real
 * service has a dashboard there; the sandbox has none, so each link opens a plain page saying what
 * the link is and what to do in the sandbox instead, rather than a 404 a user takes for a bug.
 * HTML only, no script, no key needed (a link is opened in a browser); every value is escaped.
 */

const ENTITIES: Record<string, string> = {
	'&': '&amp;',
	'<': '&lt;',
	'>': '&gt;',
	'"': '&quot;',
	"'": '&#39;',
};

function escape(text: string): string {
	return text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

const CSS =
	'body{margin:0;font:16px/1.5 system-ui,sans-serif;background:#f4f6fa;color:#1d2433}' +
	'main{max-width:720px;margin:0 auto;padding:24px 16px}h1{font-size:1.4rem;margin:8px 0}' +
	'.note{background:#fff;border:1px solid #dde2ec;border-left:4px solid #2563eb;border-radius:8px;padding:10px 12px}' +
	'pre{background:#fff;border:1px solid #dde2ec;border-radius:8px;padding:10px;white-space:pre-wrap;overflow-wrap:anywhere}' +
	'table{border-collapse:collapse}td,th{border-bottom:1px solid #dde2ec;padding:4px 10px;text-align:left}' +
	'.muted{color:#5b6478;font-size:.9rem}';

function page(title: string, body: string): string {
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex,nofollow"><title>${escape(title)}</title><style>${CSS}</style></head><body><main>${body}<p class="muted">Decision Service sandbox: a local stand-in for the service, for trying the n8n node.</p></main></body></html>`;
}

function send(reply: FastifyReply, status: number, html: string): FastifyReply {
	return reply
		.code(status)
		.header('content-type', 'text/html; charset=utf-8')
		.header('cache-control', 'no-store')
		.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
		.send(html);
}

const STATUS_WORDS: Record<string, string> = {
	pending: 'Waiting for a reviewer',
	uncertain: 'Uncertain',
	ok: 'Answered',
};

function answerOf(response: StoredRun['response']): string {
	if (response.choice !== undefined) return response.choice;
	if (response.labels !== undefined) return response.labels.join(', ') || 'no label';
	if (response.score !== undefined) return `score ${response.score}`;
	return '';
}

/** The page of one run in the service's review queue. */
export function reviewPage(run: StoredRun): string {
	const response = run.response;
	const leaning = Object.entries(response.probabilities ?? {})
		.sort(([, a], [, b]) => b - a)
		.map(([key, value]) => `<tr><td>${escape(key)}</td><td>${Math.round(value * 100)}%</td></tr>`)
		.join('');
	const status = STATUS_WORDS[response.status] ?? response.status;
	const answer = answerOf(response);
	const feedback = run.feedback
		? `<p><strong>Feedback received:</strong> ${escape(run.feedback.feedback)}${run.feedback.note ? ` (${escape(run.feedback.note)})` : ''}</p>`
		: '<p>No feedback on this run yet.</p>';
	return page(
		`Review queue: ${run.run_id}`,
		`<h1>Review queue: run ${escape(run.run_id)}</h1>` +
			`<p>Decision <strong>${escape(run.decision)}</strong> (version ${run.version}), ${escape(run.created_at)}.</p>` +
			`<p><strong>${escape(status)}</strong>${answer && response.status !== 'pending' ? `: ${escape(answer)}` : ''}; confidence ${response.confidence.toFixed(2)}.</p>` +
			(leaning ? `<table aria-label="Probabilities"><tbody>${leaning}</tbody></table>` : '') +
			'<h2>What the engine saw</h2><p class="muted">Personal data replaced by tokens, as stored.</p>' +
			`<pre>${escape(JSON.stringify(run.input, null, 2))}</pre>` +
			feedback +
			'<p class="note">In the Decision Service, your team answers runs in review on this page. The sandbox has no reviewers: answer the run from n8n, with the Review operation or with Send Feedback on this run ID.</p>',
	);
}

function billingPage(): string {
	const rows = PLAN_NAMES.filter((name) => name !== 'unlimited')
		.map((name) => {
			const plan = PLANS[name];
			return `<tr><td>${escape(name)}</td><td>${plan.quota === null ? 'none' : plan.quota.toLocaleString('en-US')}</td><td>${plan.rateLimit ?? 'none'}</td></tr>`;
		})
		.join('');
	return page(
		'Billing',
		'<h1>Billing</h1><p>The sandbox bills nothing. Each demo key is one plan:</p>' +
			`<table><thead><tr><th>Plan</th><th>Decisions a month</th><th>Requests a minute</th></tr></thead><tbody>${rows}</tbody></table>` +
			'<p class="note">To try another plan, use its demo key (docs/sandbox.md). To start a new month, reset the usage on the control surface: <code>POST /_control/usage</code>.</p>',
	);
}

/** A decision's page: its type, versions and what it answers. */
export function decisionPage(decision: StoredDecision): string {
	const live = decision.versions.find((version) => version.version === decision.live_version);
	const shown = live ?? decision.versions[decision.versions.length - 1];
	const items = (shown?.items ?? [])
		.map((item) => `<tr><td>${escape(item.key)}</td><td>${escape(item.description)}</td></tr>`)
		.join('');
	return page(
		decision.name,
		`<h1>${escape(decision.name)}</h1><p>${escape(decision.description)}</p>` +
			`<p>Slug <code>${escape(decision.slug)}</code>, ${escape(decision.type)}; ${decision.live_version === null ? 'a draft, not served' : `version ${decision.live_version} is live`} (${decision.versions.length} in all).</p>` +
			(shown
				? `<p>${escape(shown.instructions)} Confidence threshold ${shown.confidence_threshold}.</p><table><tbody>${items}</tbody></table>`
				: '') +
			'<p class="note">The sandbox has no editor: publish a version or roll back on the control surface (docs/sandbox.md).</p>',
	);
}

/** The `/app` pages: registered with the prefix `/app`. */
export function appPages(app: FastifyInstance, store: SandboxStore): void {
	app.get<{ Params: { runId: string } }>('/reviews/:runId', async (request, reply) => {
		const run = store.findRun(request.params.runId);
		if (!run) {
			return send(
				reply,
				404,
				page(
					'No such run',
					`<h1>No run ${escape(request.params.runId)} here</h1><p>This sandbox does not know that run: it starts empty each time unless it keeps its state with <code>--data</code>, and runs past the plan's retention are gone.</p>`,
				),
			);
		}
		return send(reply, 200, reviewPage(run));
	});
	app.get<{ Params: { slug: string } }>('/decisions/:slug', async (request, reply) => {
		const decision = store.findDecision(request.params.slug);
		if (!decision) {
			return send(
				reply,
				404,
				page(
					'No such decision',
					`<h1>No decision ${escape(request.params.slug)} here</h1><p>This sandbox does not know that decision.</p>`,
				),
			);
		}
		return send(reply, 200, decisionPage(decision));
	});
	app.get('/settings/billing', async (_request, reply) => send(reply, 200, billingPage()));
}
