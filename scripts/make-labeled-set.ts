/**
 * Writes examples/ticket-routing-labeled.csv: 240 support tickets (subject, body) with the team
 * that should handle them (billing, technical, sales, account), for the Evaluate operation
 * (issue 22). Deterministic: a seeded generator picks phrases, so the same seed gives the same
 * file byte for byte (test/unit/evaluate-labeled-set.test.ts checks the file against it).
 *
 * Every 21st ticket (ids 8, 29, 50 … 239, 12 in all, three per team) is mislabeled on purpose:
 * its `expected` is another team, 1 + (⌊id / 21⌋ mod 3) steps further in the order billing → technical →
 * sales → account → billing. Those rows are listed in examples/ticket-routing-labeled.md; an
 * evaluation counts them wrong even when the engine is right.
 *
 * About one ticket in eight is vague on purpose (few telling words): the engine is unsure of
 * those, which is what the coverage-against-accuracy table is for.
 *
 * It also writes examples/ticket-routing-labeled-reviews.csv: the same tickets in the columns of the
 * Data Table `decision_reviews` (src/answer/labeled-row.ts) a quality watch reads, so
 * examples/quality-load-labeled.json loads it into the table in one run (issue 37): `review_id`
 * (`labeled-set/<id>`, the key its Upsert matches on), `status` (`labeled`), `decision`
 * (`ticket-routing`), `input` (the fields as JSON text) and `answer`.
 *
 *   npx tsx scripts/make-labeled-set.ts [seed]
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const TEAMS = ['billing', 'technical', 'sales', 'account'] as const;
export type Team = (typeof TEAMS)[number];

export interface LabeledTicket {
	id: number;
	subject: string;
	body: string;
	/** The team as labeled: the true team, except on the mislabeled rows. */
	expected: Team;
	/** The team the ticket was written for (not in the CSV: the .md lists the differences). */
	truth: Team;
	vague: boolean;
}

export const DEFAULT_SEED = 22;
export const SIZE = 240;
/** Ticket ids (1-based) whose label is wrong on purpose: 8, 29, 50 … 239. */
export const isMislabeled = (id: number): boolean => id % 21 === 8;

/** mulberry32: a small, well-known seeded generator (deterministic across platforms). */
export function seeded(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

interface Bank {
	subjects: string[];
	openers: string[];
	cores: string[];
	closers: string[];
	vagueSubjects: string[];
	vagueBodies: string[];
}

const SHARED_OPENERS = [
	'Hi team,',
	'Hello,',
	'Good morning.',
	'Hi there,',
	'',
	'Quick one:',
	'Sorry to bother you again.',
];
const SHARED_CLOSERS = [
	'Thanks in advance.',
	'Regards, {name}',
	'Can someone look at this today?',
	'',
	'Cheers',
	'Best, {name}',
];

const BANKS: Record<Team, Bank> = {
	billing: {
		subjects: [
			'Charged twice this month',
			'Wrong amount on my invoice',
			'Refund request',
			'Unexpected fee on my card',
			'Need a receipt for {month}',
			'Invoice {number} is wrong',
			'Double payment',
			'Billing question about my last charge',
			'Why was I billed {amount}?',
			'Credit card charged after cancelling',
		],
		openers: SHARED_OPENERS,
		cores: [
			'I was charged twice for the {month} invoice, please refund the duplicate payment.',
			'My bank statement shows a charge of {amount} that I do not recognise.',
			'The invoice says {amount} but our plan costs less, the amount is wrong.',
			'Could you send me a receipt for the payment I made in {month}?',
			'There is an unexpected fee on my credit card from your company.',
			'We cancelled but the card was still charged, we would like a refund.',
			'Please correct invoice {number}: it was billed to the wrong company name.',
			'I paid the invoice already but received a payment reminder.',
			'The refund you promised for {month} never arrived on my card.',
			'Our accountant needs all invoices and receipts since {month}.',
		],
		closers: SHARED_CLOSERS,
		vagueSubjects: ['About my money', 'Question', 'Last month'],
		vagueBodies: [
			'Something looks off with what we paid last month, can you check?',
			'I think the amount is not right.',
			'The price we pay changed and nobody told us.',
		],
	},
	technical: {
		subjects: [
			'App crashes on start',
			'Error message when uploading',
			'Website is down',
			'Sync not working',
			'API returns errors',
			'Integration with {tool} fails',
			'Very slow dashboard',
			'Bug in the export',
			'Page broken after update',
			'Error {code} everywhere',
		],
		openers: SHARED_OPENERS,
		cores: [
			'Since the last update the app crashes every time I open the reports page.',
			'Uploading a file fails with an error message: "{code} upload failed".',
			'Your website is down for our whole office, nothing loads.',
			'The sync with {tool} stopped working yesterday and shows an error.',
			'Every API call returns error {code} since this morning.',
			'The integration with {tool} fails when it tries to connect.',
			'The dashboard is extremely slow and sometimes crashes the browser.',
			'There is a bug: the export button does nothing and the console shows errors.',
			'After the update the settings page is broken and the buttons are not working.',
			'The mobile app freezes and crashes when I try to upload photos.',
		],
		closers: SHARED_CLOSERS,
		vagueSubjects: ['Problem', 'Help please', 'It stopped'],
		vagueBodies: [
			'Nothing happens when I click, can you have a look?',
			'It worked yesterday and today it does not.',
			'Something is off with the tool since this morning.',
		],
	},
	sales: {
		subjects: [
			'Pricing for {seats} seats',
			'Request a demo',
			'Quote for our team',
			'Volume discount?',
			'Trial extension before buying',
			'Talk to sales',
			'Enterprise plan question',
			'Buying licences for {seats} people',
			'Which plan fits our team?',
			'Discount for nonprofits',
		],
		openers: SHARED_OPENERS,
		cores: [
			'We would like a quote for {seats} seats and a demo next week.',
			'Could a sales representative call us about pricing for our team?',
			'Do you offer volume licences or a discount above {seats} users?',
			'We are comparing plans before a purchase and want to know the pricing.',
			'Can we extend the trial by two weeks? We plan to buy afterwards.',
			'Please send pricing and a quote for {seats} licences for our company.',
			'We are interested in buying the product for {seats} people, can we book a demo?',
			'Is there a discount for nonprofits or schools before we purchase?',
			'Which plan would you recommend for a team of {seats}? We want a quote.',
			'I would like to talk to sales about buying licences for our branch offices.',
		],
		closers: SHARED_CLOSERS,
		vagueSubjects: ['Interested', 'Our company', 'Next steps'],
		vagueBodies: [
			'We might be interested, what would it take to get started with more people?',
			'Our manager asked me to find out more about your offer.',
			'We are looking at a few tools this quarter.',
		],
	},
	account: {
		subjects: [
			'Cannot log in',
			'Forgot my password',
			'Locked out of my account',
			'Two-factor code not arriving',
			'Change my e-mail address',
			'Add users to our account',
			'Delete my account',
			'Reset password link expired',
			'Update my profile name',
			'Sign in problem',
		],
		openers: SHARED_OPENERS,
		cores: [
			'I forgot my password and the reset link does not arrive.',
			'I cannot log in: it says my account is locked out after too many tries.',
			'The two-factor code never arrives on my phone so I cannot sign in.',
			'Please change the e-mail address on my account to my new work address.',
			'How do I add users to our account and give them access?',
			'Please close and delete my account and my profile.',
			'The reset password link expired before I could use it.',
			'I need to update the name on my profile and account settings.',
			'I cannot sign in since I changed my password yesterday.',
			'My colleague left; please remove her access and add a new user to our account.',
		],
		closers: SHARED_CLOSERS,
		vagueSubjects: ['Access', 'My details', 'Question'],
		vagueBodies: [
			'I cannot get in anymore, what should I do?',
			'My details are outdated, how do I fix them?',
			'The new colleague does not see anything yet.',
		],
	},
};

const FILLERS: Record<string, string[]> = {
	month: ['January', 'February', 'March', 'April', 'May', 'June', 'September', 'October'],
	amount: ['49 EUR', '$120', '£89', '€240', '$19.99', '310 EUR'],
	number: ['INV-2041', 'INV-3378', 'F-1129', 'INV-0907', 'A-5510'],
	tool: ['Salesforce', 'Slack', 'Google Drive', 'HubSpot', 'Dropbox', 'Zapier'],
	code: ['500', '502', 'E_TIMEOUT', '403', 'ERR-17'],
	seats: ['25', '40', '120', '200', '15', '75'],
	name: ['Ana', 'Li', 'Sam', 'Jo', 'Kim', 'Max', 'Noor', 'Pablo', 'Mei', 'Tom'],
};

function fill(text: string, pick: <T>(list: readonly T[]) => T): string {
	return text.replace(/\{(\w+)\}/g, (_, name: string) => pick(FILLERS[name] ?? [name]));
}

/** The labeled set for a seed: SIZE tickets, the teams in turn, phrases picked by the generator. */
export function makeLabeledSet(seed = DEFAULT_SEED): LabeledTicket[] {
	const random = seeded(seed);
	const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
	const tickets: LabeledTicket[] = [];
	for (let id = 1; id <= SIZE; id += 1) {
		// Teams in a shuffled-looking but balanced order: 60 each.
		const truth = TEAMS[(id * 7) % TEAMS.length];
		const bank = BANKS[truth];
		const vague = random() < 0.125;
		const subject = fill(pick(vague ? bank.vagueSubjects : bank.subjects), pick);
		const parts = vague
			? [pick(bank.openers), pick(bank.vagueBodies), pick(bank.closers)]
			: [
					pick(bank.openers),
					pick(bank.cores),
					random() < 0.35 ? pick(bank.cores) : '',
					pick(bank.closers),
				];
		const body = fill([...new Set(parts)].filter((part) => part.length > 0).join(' '), pick);
		const expected = isMislabeled(id)
			? TEAMS[(TEAMS.indexOf(truth) + 1 + (Math.floor(id / 21) % 3)) % TEAMS.length]
			: truth;
		tickets.push({ id, subject, body, expected, truth, vague });
	}
	return tickets;
}

/** RFC 4180: a field with a comma, a quote or a line break is quoted, quotes doubled. */
export function csvField(value: string | number): string {
	const text = String(value);
	return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(tickets: readonly LabeledTicket[]): string {
	const lines = ['id,subject,body,expected'];
	for (const t of tickets)
		lines.push([t.id, t.subject, t.body, t.expected].map(csvField).join(','));
	return `${lines.join('\n')}\n`;
}

/** The columns of the reviews table the labeled set fills, in LABELED_ROW_COLUMNS' order. */
export const REVIEW_ROW_COLUMNS = ['review_id', 'status', 'answer', 'decision', 'input'] as const;
/** The demo decision the tickets are labeled for. */
export const LABELED_DECISION = 'ticket-routing';

/** A ticket as a row of the reviews table: what a person would type there, without typing. */
export function reviewRowOf(
	ticket: LabeledTicket,
): Record<(typeof REVIEW_ROW_COLUMNS)[number], string> {
	return {
		review_id: `labeled-set/${ticket.id}`,
		status: 'labeled',
		answer: ticket.expected,
		decision: LABELED_DECISION,
		input: JSON.stringify({ subject: ticket.subject, body: ticket.body }),
	};
}

/** The labeled set in the reviews table's columns (examples/ticket-routing-labeled-reviews.csv). */
export function toReviewsCsv(tickets: readonly LabeledTicket[]): string {
	const lines = [REVIEW_ROW_COLUMNS.join(',')];
	for (const ticket of tickets) {
		const row = reviewRowOf(ticket);
		lines.push(REVIEW_ROW_COLUMNS.map((column) => csvField(row[column])).join(','));
	}
	return `${lines.join('\n')}\n`;
}

if (require.main === module) {
	const seed = Number(process.argv[2] ?? DEFAULT_SEED);
	const tickets = makeLabeledSet(seed);
	const file = join(__dirname, '..', 'examples', 'ticket-routing-labeled.csv');
	writeFileSync(file, toCsv(tickets));
	const reviews = join(__dirname, '..', 'examples', 'ticket-routing-labeled-reviews.csv');
	writeFileSync(reviews, toReviewsCsv(tickets));
	console.log(`Wrote the same tickets in the reviews table's columns to ${reviews}.`);
	const wrong = tickets.filter((t) => t.expected !== t.truth);
	console.log(`Wrote ${tickets.length} tickets to ${file} (seed ${seed}).`);
	console.log(
		`Mislabeled on purpose (${wrong.length}): ${wrong.map((t) => `${t.id} ${t.truth}→${t.expected}`).join(', ')}`,
	);
	console.log(`Vague on purpose: ${tickets.filter((t) => t.vague).length}`);
}
