/**
 * Writes the quality-watch examples (docs/quality-watch.md); the review example's store is
 * scripts/make-review-store.ts's:
 *
 * - examples/quality-watch.json: every Monday, the stored reviews (and any labeled rows the team
 *   added) evaluated on the live version, compared with the figures of the last run (a Data
 *   Table), the new figures stored, the report's message ready to send, a Drift output for alerts.
 * - examples/quality-compare-versions.json: the stored set decided on the live version and on a
 *   pinned one, said as a decision to take.
 *
 * The tables' columns are src/evaluate's (LABELED_ROW_COLUMNS, FIGURES_ROW_COLUMNS).
 * Run: npx tsx scripts/make-quality-watch-example.ts
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIGURES_ROW_COLUMNS } from '../src/evaluate';
import { LABELED_ROW_COLUMNS } from '../src/answer';
import {
	dataTable,
	ensureTable,
	fieldAsItem,
	insertRows,
	noOp,
	sticky,
	table,
	to,
	upsertRows,
	type Node,
} from './example-nodes';

const examples = join(__dirname, '..', 'examples');
const credentials = {
	decisionServiceApi: { id: 'decisionServiceSandbox', name: 'Decision Service sandbox' },
};
const decision = {
	__rl: true,
	mode: 'list',
	value: 'ticket-routing',
	cachedResultName: 'Ticket routing (route)',
};
const service = 'n8n-nodes-decision-service.decisionService';

export const REVIEWS_TABLE = 'decision_reviews';
export const FIGURES_TABLE = 'decision_quality';

/** Data Table: each item updates the row whose `id` it carries (an Update never adds a row). */
function updateById(id: string, name: string, tableName: string, position: [number, number]): Node {
	const upsert = upsertRows(id, name, tableName, 'id', position);
	return { ...upsert, parameters: { ...upsert.parameters, operation: 'update' } };
}

/** Data Table: the rows of one decision. */
function rowsOf(
	id: string,
	name: string,
	tableName: string,
	position: [number, number],
	extra: Record<string, unknown>,
): Node {
	return {
		id,
		name,
		type: dataTable,
		typeVersion: 1.1,
		position,
		parameters: {
			resource: 'row',
			operation: 'get',
			dataTableId: table(tableName),
			matchType: 'allConditions',
			filters: {
				conditions: [{ keyName: 'decision', condition: 'eq', keyValue: decision.value }],
			},
			...extra,
		},
	};
}

const evaluateStored = {
	resource: 'decision',
	operation: 'evaluate',
	decision,
	inputMode: 'json',
	jsonInput: '={{ $json.input }}',
	expected: '={{ $json.answer }}',
};

const uuid = (prefix: string, n: number) =>
	`${prefix}-0000-4000-8000-${String(n).padStart(12, '0')}`;

// ---------------------------------------------------------------- the quality watch
const W = (n: number) => uuid('7a11c4e0-5e32', n);
const WATCH_NOTE = [
	'## What a run costs',
	`A stored review keeps the answer of the version that made it: while that version is live, each row is scored from it, **free**, and a doubtful row is never sent to the service again. Rows you add without an answer are decided once (one unit each); *Store new answers* keeps the answer on the row (by its \`id\`). When the live version changes, the **200 most recent rows** of every kind are decided on it (*Version Change Sample*) and compared with their old answers, paired: **one change, one test, at most 200 units in all**. The runs after it (the last figures are on the new version) decide none again: older rows stay out of the figures, and the message says how many. *Max Decides per Execution* caps a run: rows beyond it are not sent, and the report is **partial**: never compared nor a baseline.`,
	'',
	"A bad row (an answer the decision does not know, none at all) never stops the run: the report's `bad_rows` and its message name each one, with what to fix.",
	'',
	`The figures of each run go to the table **${FIGURES_TABLE}**. **Drift** gets the report on evidence: the rows reviewed in the last 7 days (*Recent Window*) against the rows before, or on a version change the same rows on both versions, a drop beyond chance at the 1 % *False-Alarm Rate* **and** at least *Drop Alert Threshold* (5 points). The message gives the change with its 95 % interval, or says there are too few rows to tell.`,
	'',
	`Add labeled rows of your own to **${REVIEWS_TABLE}**: \`decision\` = ticket-routing, \`input\` = the fields as JSON, \`answer\` = the right option.`,
].join('\n');

const watchNodes: Node[] = [
	{
		id: W(1),
		name: 'Every Monday at 8',
		type: 'n8n-nodes-base.scheduleTrigger',
		typeVersion: 1.2,
		position: [0, 300],
		parameters: { rule: { interval: [{ field: 'weeks', triggerAtDay: [1], triggerAtHour: 8 }] } },
	},
	ensureTable(W(2), 'Reviews table', REVIEWS_TABLE, LABELED_ROW_COLUMNS, [220, 300]),
	ensureTable(W(3), 'Figures table', FIGURES_TABLE, FIGURES_ROW_COLUMNS, [440, 300]),
	{
		// Oldest first; Watch quality reads the last. (n8n 1.123's node has no Order By, and keeps
		// the table's order: the same rows, the same last.)
		...rowsOf(W(4), 'Previous figures', FIGURES_TABLE, [660, 300], {
			returnAll: true,
			orderBy: true,
			orderByColumn: 'createdAt',
			orderByDirection: 'ASC',
		}),
		// The first run finds none: one empty item, and this run is the baseline.
		alwaysOutputData: true,
	},
	{
		...rowsOf(W(5), 'Stored reviews', REVIEWS_TABLE, [880, 300], { returnAll: true }),
		executeOnce: true,
	},
	{
		id: W(6),
		name: 'Watch quality',
		type: service,
		typeVersion: 1,
		position: [1100, 300],
		credentials,
		parameters: {
			...evaluateStored,
			evaluateOptions: {
				// Every earlier row: the last full one is the baseline (a partial one never is).
				previousFigures: "={{ $('Previous figures').all().map((row) => row.json) }}",
				dropThreshold: 5,
				falseAlarmRate: 1,
				recentWindowDays: 7,
				versionChangeSample: 200,
			},
		},
	},
	fieldAsItem(W(7), 'Figures row', 'figures', [1360, 120]),
	insertRows(W(8), 'Save figures', FIGURES_TABLE, [1580, 120]),
	noOp(W(9), 'Send the message (Slack, e-mail)', [1360, 300]),
	{
		id: W(10),
		name: 'Decided again',
		type: 'n8n-nodes-base.filter',
		typeVersion: 2.2,
		position: [1360, 480],
		parameters: {
			conditions: {
				options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
				conditions: [
					{
						id: W(13),
						leftValue: "={{ String($json.stored_row?.id ?? '') }}",
						rightValue: '',
						operator: { type: 'string', operation: 'notEmpty', singleValue: true },
					},
				],
				combinator: 'and',
			},
			options: {},
		},
	},
	fieldAsItem(W(14), 'New answer', 'stored_row', [1580, 480]),
	// The new answers on their own rows (by the Data Table row's id; a row with no answer stored,
	// a review or a row a team loaded): the next run scores them free, the next version change
	// pairs them with these answers.
	updateById(W(15), 'Store new answers', REVIEWS_TABLE, [1800, 480]),
	noOp(W(11), 'Alert: accuracy dropped', [1360, 660]),
	sticky(W(12), 'What a run costs', [560, -160], [760, 400], WATCH_NOTE),
];

const watch = {
	id: 'dsExQualityWatch',
	name: 'Decision Service: quality watch of ticket routing',
	active: false,
	nodes: watchNodes,
	connections: {
		'Every Monday at 8': { main: [to('Reviews table')] },
		'Reviews table': { main: [to('Figures table')] },
		'Figures table': { main: [to('Previous figures')] },
		'Previous figures': { main: [to('Stored reviews')] },
		'Stored reviews': { main: [to('Watch quality')] },
		'Watch quality': {
			main: [
				[...to('Figures row'), ...to('Send the message (Slack, e-mail)')],
				to('Decided again'),
				to('Alert: accuracy dropped'),
			],
		},
		'Figures row': { main: [to('Save figures')] },
		'Decided again': { main: [to('New answer')] },
		'New answer': { main: [to('Store new answers')] },
	},
	settings: { executionOrder: 'v1' },
	pinData: {},
	meta: {
		description: `Every Monday: the rows of ${REVIEWS_TABLE} (reviews and rows a team loaded) scored from the answers they keep (free while their version is live; a row without one decided once and its answer kept on it; on a version change the 200 most recent decided again, paired, once per change), the recent rows tested against the rows before; the report's message is ready for Slack or e-mail, and Drift gets it on a drop beyond chance (1 % false-alarm rate) of at least 5 points.`,
	},
};

// ---------------------------------------------------------------- two versions side by side
const C = (n: number) => uuid('7a11c4e0-5e33', n);
const COMPARE_NOTE = [
	'## Before a change goes live',
	'Set **Compare With Version** in *Try a version* to the version you want to try. Each stored row is decided on that version (**one unit per row**) and scored on the live one from the answer it keeps, free (a row with no answer on the live version is decided on it too: one more unit). The report says what it charged.',
	'',
	"The report's `comparison.summary` says it as a decision: right and wrong answers of each version on the same rows, and the cost.",
].join('\n');
const compareNodes: Node[] = [
	{
		id: C(1),
		name: 'Run example',
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 300],
		parameters: {},
	},
	{
		...rowsOf(C(2), 'Stored reviews', REVIEWS_TABLE, [220, 300], { returnAll: true }),
		executeOnce: true,
	},
	{
		id: C(3),
		name: 'Try a version',
		type: service,
		typeVersion: 1,
		position: [440, 300],
		credentials,
		parameters: { ...evaluateStored, evaluateOptions: { compareVersion: 1 } },
	},
	noOp(C(4), 'Comparison', [680, 200]),
	noOp(C(5), 'Scored reviews', [680, 400]),
	sticky(C(6), 'Before a change goes live', [160, 0], [520, 240], COMPARE_NOTE),
];
const compare = {
	id: 'dsExQualityCompare',
	name: 'Decision Service: try a version on the stored reviews',
	active: false,
	nodes: compareNodes,
	connections: {
		'Run example': { main: [to('Stored reviews')] },
		'Stored reviews': { main: [to('Try a version')] },
		'Try a version': { main: [to('Comparison'), to('Scored reviews')] },
	},
	settings: { executionOrder: 'v1' },
	pinData: {},
	meta: {
		description: `The reviews stored in ${REVIEWS_TABLE} decided on a pinned version (one unit per row) beside the live version's answers they keep (free; a row without one is decided on it too): which answers more right, which more wrong, at what cost.`,
	},
};

if (require.main === module) {
	const write = (file: string, workflow: unknown) =>
		writeFileSync(join(examples, file), `${JSON.stringify(workflow, null, 2)}\n`);
	write('quality-watch.json', watch);
	write('quality-compare-versions.json', compare);
}
