/**
 * The Outputs list: one home for the idea.
 *
 * Vocabulary. The list is saved in the node's parameter `routes` (the name stays: saved workflows
 * use it); the editor shows it as "Outputs" (or "Answers" on the tool). Each element is an
 * *entry* (a resource-mapper field): a key of the decision, a fixed entry (Uncertain, Pending
 * Review, Other), a kept error position, or a hidden entry (display: false) that carries data.
 * Every shown entry that is not removed is one output, in the list's order.
 *
 * This file owns the ids, the entry type, the layout (which output index each entry has) and the
 * merge a refresh does. The functions n8n evaluates from their source text (the outputs, the tool
 * description, the subtitle) live in expressions.ts: they may import this file's TYPES only and
 * repeat its ids as literals; test/unit/outputs-list.test.ts holds the literals equal to these.
 *
 * Which output does an item go to: decide/routing.ts `targetsFor(run, layout)`, with the layout
 * from `outputsLayout` below, which mirrors `configuredOutputs` (expressions.ts).
 */
import type { ResourceMapperField } from 'n8n-workflow';
import type { Decision } from '../../../src/contract';
import { kindOf } from '../../../src/kinds';

/** The node parameter that stores the Outputs list. */
export const OUTPUTS_LIST_PARAMETER = 'routes';

/** The entry that stands for "no label retained" on classify decisions (a key, not a fixed entry). */
export const NO_LABEL_KEY = '__no_label__';

/**
 * Ids of the shown entries that are not keys of the decision. Keys are slugs (lower-case letters,
 * digits, hyphens), so an id with underscores can never collide with one.
 */
export const ENTRY = {
	uncertain: '__out_uncertain__',
	pending: '__out_pending__',
	other: '__out_other__',
	/** `__out_error_<n>__`: where n8n's error output was before a refresh added outputs. */
	errorKeeperPrefix: '__out_error_',
} as const;

/** Hidden entries (display: false) that only carry the decision's identity for the tool description and the refresh. */
export const HIDDEN_ENTRY = {
	decision: '__meta_decision__',
	question: '__meta_question__',
	type: '__meta_type__',
} as const;

/** The fixed entries, in the order a list saved as keys only gets them after its keys. */
export const FIXED_ENTRY_IDS = [ENTRY.uncertain, ENTRY.pending, ENTRY.other] as const;

export const FIXED_OUTPUT_NAMES = {
	[ENTRY.uncertain]: 'Uncertain',
	[ENTRY.pending]: 'Pending Review',
	[ENTRY.other]: 'Other',
} as const;

export const ERROR_KEEPER_NAME = 'Error (kept in place)';

/**
 * Review's first output: items nobody reviewed. First because n8n, when a wait's time limit
 * passes, hands the waiting node's input to its first output (the node does not run again).
 */
export const NOT_REVIEWED_NAME = 'Not Reviewed';

/** Appended to the name of a key the service no longer has. */
export const REMOVED_ON_SERVICE = '(no longer on the service)';

/** One entry of the saved Outputs list, as the node reads it (a resource-mapper field). */
export interface OutputsListEntry {
	id: string;
	displayName?: string;
	display?: boolean;
	removed?: boolean;
}

/** The saved parameter: the entries (`schema`) and the user's output names by key (`value`). */
export interface SavedOutputsList {
	schema?: OutputsListEntry[];
	value?: Record<string, unknown> | null;
}

export const isFixedEntry = (id: string): boolean =>
	(FIXED_ENTRY_IDS as readonly string[]).includes(id);
export const isErrorKeeper = (id: string): boolean => id.startsWith(ENTRY.errorKeeperPrefix);

// ---------------------------------------------------------------------------------------------
// The layout: which output index each entry has.
// ---------------------------------------------------------------------------------------------

/** Output index of each route key and of the fixed outputs, as configuredOutputs (expressions.ts) lays them out. */
export interface OutputsLayout {
	indexOf: Map<string, number>;
	noLabel?: number;
	uncertain: number;
	pending: number;
	other: number;
	/** Outputs standing where n8n's error output was before a refresh added outputs (see ENTRY.errorKeeperPrefix). */
	errorKeepers: number[];
	count: number;
}

/**
 * The layout of the saved Outputs list: one output per shown entry in saved order (hidden entries
 * carry data; keys the user removed have none), the fixed outputs where the list has them, or
 * after everything for a list saved as keys only. Mirrors configuredOutputs, which must stay
 * self-contained; a unit test holds the two together.
 */
export function outputsLayout(schema: ReadonlyArray<string | OutputsListEntry>): OutputsLayout {
	const indexOf = new Map<string, number>();
	const fixedAt = new Map<string, number>();
	const errorKeepers: number[] = [];
	let count = 0;
	for (const entry of schema) {
		const field: OutputsListEntry = typeof entry === 'string' ? { id: entry } : entry;
		if (field.display === false) continue;
		const isFixed = isFixedEntry(field.id);
		if (field.removed === true && !isFixed) continue;
		if (isFixed) fixedAt.set(field.id, count);
		else if (isErrorKeeper(field.id)) errorKeepers.push(count);
		else indexOf.set(field.id, count);
		count++;
	}
	for (const id of FIXED_ENTRY_IDS) if (!fixedAt.has(id)) fixedAt.set(id, count++);
	return {
		indexOf,
		noLabel: indexOf.get(NO_LABEL_KEY),
		uncertain: fixedAt.get(ENTRY.uncertain)!,
		pending: fixedAt.get(ENTRY.pending)!,
		other: fixedAt.get(ENTRY.other)!,
		errorKeepers,
		count,
	};
}

/**
 * Review's layout: Not Reviewed first, then the same Outputs list as Decide without its fixed
 * entries (a person's answer is never uncertain or pending, and is always one of the keys): each
 * key keeps its rename and its order, so the answer outputs line up with Decide's. Mirrors the
 * review branch of configuredOutputs.
 */
export function reviewLayout(schema: ReadonlyArray<string | OutputsListEntry>): {
	indexOf: Map<string, number>;
	noLabel?: number;
	notReviewed: number;
	count: number;
} {
	const indexOf = new Map<string, number>();
	let count = 1;
	for (const entry of schema) {
		const field: OutputsListEntry = typeof entry === 'string' ? { id: entry } : entry;
		if (field.display === false || field.removed === true || isFixedEntry(field.id)) continue;
		if (!isErrorKeeper(field.id)) indexOf.set(field.id, count);
		count++;
	}
	return { indexOf, noLabel: indexOf.get(NO_LABEL_KEY), notReviewed: 0, count };
}

// ---------------------------------------------------------------------------------------------
// The merge a refresh does (methods/resource-mapping.ts serves it to the editor).
// ---------------------------------------------------------------------------------------------

/*
 * The Outputs list a refresh loads: the saved list merged with the decision's keys on the service,
 * so that no output ever changes meaning. n8n connects outputs by index, and the editor's refresh
 * replaces the saved list with whatever the node's method returns (keeping only each field's
 * "removed" flag), so the node does the merge itself, here:
 *
 * - saved entries keep their places: keys, Uncertain, Pending Review, Other, kept error positions;
 * - a key gone from the service keeps its output, its name marked, until the user removes it from
 *   the list (a removed key that the service no longer has is then dropped);
 * - new keys are appended, after one "Error (kept in place)" entry: n8n puts its error output after
 *   all the node's outputs, so the output that takes the old error index must carry the failed
 *   items, or the error wire would start receiving the new key's items;
 * - hidden entries (display: false) carry the decision's slug, question and type (for the AI-tool
 *   description and to recognise a list saved for another decision).
 */

type DecisionShape = Pick<
	Decision,
	'slug' | 'type' | 'instructions' | 'options' | 'levels' | 'labels'
>;

function entry(id: string, displayName: string, display = true): ResourceMapperField {
	return {
		id,
		displayName,
		required: false,
		defaultMatch: false,
		canBeUsedToMatch: false,
		display,
		type: 'string',
	};
}

/** The decision's keys in the service's order (levels lowest first), plus No Label for classify. */
export function decisionKeys(decision: DecisionShape): string[] {
	const kind = kindOf(decision.type);
	if (!kind) return [];
	return kind.many ? [...kind.keysOf(decision), NO_LABEL_KEY] : kind.keysOf(decision);
}

function keyName(key: string): string {
	return key === NO_LABEL_KEY ? 'No Label' : key;
}

function metaEntries(decision: DecisionShape): ResourceMapperField[] {
	return [
		entry(HIDDEN_ENTRY.decision, decision.slug, false),
		entry(HIDDEN_ENTRY.question, decision.instructions, false),
		entry(HIDDEN_ENTRY.type, decision.type, false),
	];
}

/**
 * Whether a saved list belongs to this decision: by its hidden slug, or for a list saved before it
 * had one, when it shares a key with the decision. (The editor empties the list when another
 * decision is picked; this guards against merging a stale one.)
 */
function savedForThisDecision(
	decision: DecisionShape,
	saved: readonly ResourceMapperField[],
	keys: string[],
): boolean {
	const slug = saved.find((field) => field.id === HIDDEN_ENTRY.decision);
	if (slug) return slug.displayName === decision.slug;
	return saved.some((field) => keys.includes(field.id));
}

/** The list for a decision picked anew: its keys, then Uncertain, Pending Review and Other. */
export function freshOutputsList(decision: DecisionShape): ResourceMapperField[] {
	return [
		...decisionKeys(decision).map((key) => entry(key, keyName(key))),
		...FIXED_ENTRY_IDS.map((id) => entry(id, FIXED_OUTPUT_NAMES[id])),
		...metaEntries(decision),
	];
}

/**
 * The list as Review shows it: the same entries, its fixed rows hidden (a person's answer is
 * never uncertain or pending, so they are not Review's outputs; kept, so a refresh keeps places).
 */
export function forReview(fields: ResourceMapperField[]): ResourceMapperField[] {
	return fields.map((field) => (isFixedEntry(field.id) ? { ...field, display: false } : field));
}

/** The saved list merged with the decision as the service has it now (see the file's comment). */
export function outputsListFor(
	decision: DecisionShape,
	saved: readonly ResourceMapperField[] | undefined,
): ResourceMapperField[] {
	const keys = decisionKeys(decision);
	if (!saved?.length || !savedForThisDecision(decision, saved, keys)) {
		return freshOutputsList(decision);
	}

	const merged: ResourceMapperField[] = [];
	const seen = new Set<string>();
	for (const field of saved) {
		if (field.display === false) continue;
		seen.add(field.id);
		if (isFixedEntry(field.id)) {
			merged.push({
				...entry(field.id, FIXED_OUTPUT_NAMES[field.id as keyof typeof FIXED_OUTPUT_NAMES]),
			});
		} else if (isErrorKeeper(field.id)) {
			merged.push({ ...entry(field.id, ERROR_KEEPER_NAME), removed: field.removed });
		} else if (keys.includes(field.id)) {
			merged.push({ ...entry(field.id, keyName(field.id)), removed: field.removed });
		} else if (field.removed !== true) {
			merged.push(entry(field.id, `${keyName(field.id)} ${REMOVED_ON_SERVICE}`));
		}
		// else: removed by the user and gone from the service; it had no output, so dropping it moves nothing.
	}
	// A list saved with keys only had the fixed outputs after its keys: make that explicit.
	for (const id of FIXED_ENTRY_IDS) {
		if (!seen.has(id)) merged.push(entry(id, FIXED_OUTPUT_NAMES[id]));
	}
	const added = keys.filter((key) => !seen.has(key));
	if (added.length) {
		const keepers = merged.filter((field) => isErrorKeeper(field.id)).length;
		merged.push(entry(`${ENTRY.errorKeeperPrefix}${keepers + 1}__`, ERROR_KEEPER_NAME));
		for (const key of added) merged.push(entry(key, keyName(key)));
	}
	return [...merged, ...metaEntries(decision)];
}
