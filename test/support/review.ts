/**
 * What the review tests in real n8n share (issue 21): tickets for the sandbox's `ticket-routing`
 * on a Pro key (its threshold 0.6 and human review send a weak answer to Pending Review), the way
 * Decide answers each (the sandbox's deterministic engine, sandbox/engine.ts), and what the person
 * picks on the review page. With Decide's Close Call Gap at 0.5 two confident answers become close
 * calls (Uncertain): then the doubtful tickets arrive on two outputs. Subjects are unique and none
 * is part of another: the tests find an item on the page by its subject.
 */
import type { Execution } from '../../harness/n8n-executions';
import { NOT_REVIEWED, type ReviewWorkflow } from '../../harness/n8n-review';
import type { SandboxExchange } from '../../sandbox/server';

/** A Close Call Gap that makes two of the tickets below close calls. */
export const CLOSE_CALL_GAP = 0.5;

export interface ReviewTicket {
	subject: string;
	body: string;
	/** Where Decide sends it: a team (its option key) or Pending Review. */
	routed: 'billing' | 'technical' | 'sales' | 'account' | 'Pending Review';
	/** A close call at CLOSE_CALL_GAP: Uncertain when Decide has that gap. */
	closeCall?: true;
	/**
	 * The machine's answer: its choice, or its most probable option when it was doubtful; undefined
	 * on a tie at the top (no guess, src/answer/kinds.ts: a pick is then never "correct" nor agreed).
	 */
	machine: string | undefined;
	/** Doubtful tickets: the person's pick on the page (undefined: left for later) and note. */
	pick?: string;
	note?: string;
}

export const REVIEW_TICKETS: ReviewTicket[] = [
	{
		subject: 'Charged twice',
		body: 'I was charged twice on my invoice for March, please refund the duplicate payment.',
		routed: 'billing',
		machine: 'billing',
	},
	{
		subject: 'Refund and crash',
		body: 'Refund me, the app crashes',
		// technical 0.72, billing 0.23: a close call at 0.5.
		routed: 'technical',
		closeCall: true,
		machine: 'technical',
		pick: 'billing',
	},
	{
		subject: 'App crashes on login',
		body: 'Since the last update the app crashes with an error every time I log in.',
		routed: 'technical',
		machine: 'technical',
	},
	{
		subject: 'Pricing for 200 seats',
		body: 'We would like a quote and a demo for 200 seats, can we talk to sales?',
		routed: 'sales',
		machine: 'sales',
	},
	{
		subject: 'hello',
		body: 'hello',
		// Every option 0.25: pending, the first option is the service's choice, but a tie is no guess.
		routed: 'Pending Review',
		machine: undefined,
	},
	{
		subject: 'Change my email',
		body: 'Please change the email address of my account and reset my password.',
		routed: 'account',
		machine: 'account',
	},
	{ subject: 'Refund please', body: 'Refund please', routed: 'billing', machine: 'billing' },
	{
		subject: 'Invoice and crash',
		body: 'My invoice is wrong and the app crashes',
		// billing and technical tied at 0.48: pending, billing (first) its choice; a tie: no guess.
		routed: 'Pending Review',
		machine: undefined,
		pick: 'billing',
	},
	{ subject: 'Refund the fee', body: 'Refund the fee', routed: 'billing', machine: 'billing' },
	{ subject: 'Upload fails', body: 'The upload fails', routed: 'technical', machine: 'technical' },
	{
		subject: 'Trial error',
		body: 'The trial shows an error message',
		// technical 0.72, sales 0.23: a close call at 0.5.
		routed: 'technical',
		closeCall: true,
		machine: 'technical',
		pick: 'technical',
	},
	{
		subject: 'Demo request',
		body: 'A demo for my team please',
		routed: 'sales',
		machine: 'sales',
	},
	{ subject: 'Locked out', body: 'I am locked out', routed: 'account', machine: 'account' },
	{
		subject: 'Bill and login',
		body: 'The bill is wrong and I cannot log in',
		// billing and account tied at 0.48: pending, billing its choice; a tie: no guess.
		routed: 'Pending Review',
		machine: undefined,
		pick: 'account',
		note: 'They cannot log in: account first, the bill after.',
	},
	{
		subject: 'Slow website',
		body: 'The website is slow',
		routed: 'technical',
		machine: 'technical',
	},
	{ subject: 'Discount', body: 'Is there a discount?', routed: 'sales', machine: 'sales' },
	{
		subject: 'Receipt',
		body: 'I need a receipt for my payment',
		routed: 'billing',
		machine: 'billing',
	},
	{
		subject: 'Password and payment',
		body: 'Reset my password and the payment failed',
		// account 0.5996, under the threshold 0.6: pending.
		routed: 'Pending Review',
		machine: 'account',
		pick: 'account',
	},
	{
		subject: 'Delete account',
		body: 'Please delete my account',
		routed: 'account',
		machine: 'account',
	},
	{ subject: 'Sync down', body: 'Sync is down', routed: 'technical', machine: 'technical' },
];

/** A ticket as the workflow's webhook takes it (the example's fields: subject, body, email, plan). */
export function ticketItem(ticket: ReviewTicket, index: number, prefix = 'customer') {
	return {
		subject: ticket.subject,
		body: ticket.body,
		email: `${prefix}-${index}@example.com`,
		plan: 'pro',
	};
}

/** Where Decide sends a ticket, with Close Call Gap or without. */
export const routedTo = (ticket: ReviewTicket, closeCalls = false) =>
	closeCalls && ticket.closeCall ? 'Uncertain' : ticket.routed;

/**
 * Whether a ticket reaches the Review node: the example gathers Uncertain and Pending Review into
 * it with a Merge (n8n runs a node once per wire that has items, and only the first run waits).
 */
export const isDoubtful = (ticket: ReviewTicket, closeCalls = false) =>
	['Pending Review', 'Uncertain'].includes(routedTo(ticket, closeCalls));

/** The feedback a reviewed ticket's pick sends: `correct` when it is the machine's answer or guess. */
export const feedbackOf = (ticket: ReviewTicket) =>
	ticket.pick === ticket.machine ? 'correct' : ticket.pick;

/**
 * Where each ticket must end, by subject: a confident one on the node its team's output of Decide
 * is wired to, a reviewed one on the node its pick's output of Review is wired to, one left for
 * later on the node of Review's Not Reviewed. Each output must be wired to exactly one node.
 */
export function expectedEnds(
	tickets: ReviewTicket[],
	review: Pick<ReviewWorkflow, 'decideTargets' | 'reviewTargets'>,
	closeCalls = false,
): Record<string, string[]> {
	const target = (targets: Record<string, string[]>, name: string) => {
		if (targets[name]?.length !== 1)
			throw new Error(`output ${name} is wired to ${JSON.stringify(targets[name])}, not one node`);
		return targets[name][0];
	};
	return Object.fromEntries(
		tickets.map((ticket) => [
			ticket.subject,
			[
				!isDoubtful(ticket, closeCalls)
					? target(review.decideTargets, routedTo(ticket, closeCalls))
					: target(review.reviewTargets, ticket.pick ?? NOT_REVIEWED),
			],
		]),
	);
}

/** The run each ticket got from Decide, by subject (the `decision` Decide wrote on the item). */
export function runIdsBySubject(execution: Execution, decideNode: string): Map<string, string> {
	return new Map(
		(execution.outputs[decideNode] ?? []).flat().map((item) => {
			const decision = item.json.decision as Record<string, unknown> | undefined;
			return [String(item.json.subject), String(decision?.run_id)];
		}),
	);
}

/** The service's feedback posts among the sandbox's exchanges: `POST /v1/runs/{run_id}/feedback`. */
export const feedbackPosts = (exchanges: SandboxExchange[]) =>
	exchanges.filter(
		(exchange) => exchange.method === 'POST' && /^\/v1\/runs\/[^/]+\/feedback$/.test(exchange.path),
	);

/** The run a feedback post was about. */
export const runIdOfPost = (exchange: SandboxExchange) => exchange.path.split('/')[3];

/** The decide posts among the sandbox's exchanges. */
export const decidePosts = (exchanges: SandboxExchange[]) =>
	exchanges.filter(
		(exchange) => exchange.method === 'POST' && exchange.path.startsWith('/v1/decide/'),
	);

/** What the sandbox keeps as a reviewed ticket's feedback: `correct` or the pick, and the note. */
export const expectedFeedback = (ticket: ReviewTicket) => ({
	feedback: feedbackOf(ticket),
	...(ticket.note ? { note: ticket.note } : {}),
	at: expect.any(String),
});

/** The doubtful tickets the person reviews (those with a pick), with Close Call Gap or without. */
export const reviewedOf = (tickets: ReviewTicket[], closeCalls = false) =>
	tickets.filter((ticket) => isDoubtful(ticket, closeCalls) && ticket.pick !== undefined);

/** The doubtful tickets the person leaves for later. */
export const laterOf = (tickets: ReviewTicket[], closeCalls = false) =>
	tickets.filter((ticket) => isDoubtful(ticket, closeCalls) && ticket.pick === undefined);

/** What the person does on the page (harness fillReview): each reviewed ticket's pick and note. */
export const choicesFor = (tickets: ReviewTicket[], closeCalls = false) =>
	reviewedOf(tickets, closeCalls).map((ticket) => ({
		marker: ticket.subject,
		answer: ticket.pick,
		note: ticket.note,
	}));
