/**
 * The Outputs list: one home for the idea.
 *
 * Vocabulary. The list is saved in the node's parameter `routes` (the name stays: saved workflows
 * use it); the editor shows it as "Outputs" (or "Answers" on the tool). Each element is an
 * *entry* (a resource-mapper field): a key of the decision, a fixed entry (Uncertain, Pending
 * Review, Other), a kept error position, or a hidden entry (display: false) that carries data.
 * Every shown entry that is not removed is one output, in the list's order.
 *
 * This file owns the merge a refresh does. The rest of the outputs' home: which outputs the node
 * has (ids, names, roles), plan.ts, the one definition of the ids and names used here and of the
 * saved list's types (plan.ts imports nothing of this file); each entry's output index, read from the plan, layout.ts; where an item goes, targets.ts;
 * the parameter, parameter.ts.
 */
import type { ResourceMapperField } from 'n8n-workflow';
import type { Decision } from '../../../src/contract';
import { kindOf } from '../../../src/answer/kinds';
import { OUTPUT_IDS, OUTPUT_NAMES, outputsPlan } from './plan';

/** The node parameter that stores the Outputs list. */
export const OUTPUTS_LIST_PARAMETER = 'routes';

/** The entry that stands for "no label retained" on classify decisions (a key, not a fixed entry). */
export const NO_LABEL_KEY = '__no_label__';

/**
 * Ids of the shown entries that are not keys of the decision: the outputs plan's (plan.ts), where
 * each is written once.
 */
export const ENTRY = {
	uncertain: OUTPUT_IDS.uncertain,
	pending: OUTPUT_IDS.pending,
	other: OUTPUT_IDS.other,
	/** Copies of the confident answers Decide's Audit Share picked (added once a share is set). */
	audit: OUTPUT_IDS.audit,
	/** `__out_error_<n>__`: where n8n's error output was before a refresh added outputs. */
	errorKeeperPrefix: OUTPUT_IDS.errorKeeperPrefix,
} as const;

/** Hidden entries (display: false) that only carry the decision's identity for the tool description and the refresh. */
export const HIDDEN_ENTRY = {
	decision: '__meta_decision__',
	question: '__meta_question__',
	type: '__meta_type__',
} as const;

/**
 * The fixed entries and their names, in the order a list saved as keys only gets them after its
 * keys: read from the plan of an empty list (those are exactly its outputs).
 */
const FIXED_OUTPUTS = outputsPlan({});
export const FIXED_ENTRY_IDS: readonly string[] = FIXED_OUTPUTS.map((output) => output.id);
export const FIXED_OUTPUT_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
	FIXED_OUTPUTS.map((output) => [output.id, output.name]),
);

export const ERROR_KEEPER_NAME = OUTPUT_NAMES.errorKeeper;

export const AUDIT_OUTPUT_NAME = OUTPUT_NAMES.audit;

/** Review's first output: items nobody reviewed (see OUTPUT_NAMES.notReviewed for why first). */
export const NOT_REVIEWED_NAME = OUTPUT_NAMES.notReviewed;

/** Appended to the name of a key the service no longer has. */
export const REMOVED_ON_SERVICE = '(no longer on the service)';

/** The saved list's types live with the plan that reads them (plan.ts: imports go one way). */
export type { OutputsListEntry, SavedOutputsList } from './plan';

export const isFixedEntry = (id: string): boolean => FIXED_ENTRY_IDS.includes(id);
export const isErrorKeeper = (id: string): boolean => id.startsWith(ENTRY.errorKeeperPrefix);
/** Entries that are no answer of the decision: Review has no output for them (asked of the plan). */
export const isMachineOnlyEntry = (id: string): boolean =>
	outputsPlan({ operation: 'review', routes: { schema: [{ id }] } }).length === 1;

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
 * - a key gone from the service keeps its output, its name marked; a row the user deleted keeps
 *   an empty output marked "✕" (plan.ts), so nothing after it moves;
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

function entry(
	id: string,
	displayName: string,
	display = true,
	prefill = display,
): ResourceMapperField {
	return {
		id,
		displayName,
		required: false,
		defaultMatch: false,
		canBeUsedToMatch: false,
		display,
		type: 'string',
		// The box shows the output's name (an empty box looked like a required field); not a marked
		// name, which would stay as a rename once the mark is gone.
		...(prefill ? { defaultValue: displayName } : {}),
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

/** What the node asks of its list besides the decision: an Audit output (Decide's Audit Share set). */
export interface OutputsListWants {
	audit?: boolean;
}

/**
 * The list for a decision picked anew: its keys, then Uncertain, Pending Review and Other, then
 * Audit when an audit share is set.
 */
export function freshOutputsList(
	decision: DecisionShape,
	wants: OutputsListWants = {},
): ResourceMapperField[] {
	return [
		...decisionKeys(decision).map((key) => entry(key, keyName(key))),
		...FIXED_ENTRY_IDS.map((id) => entry(id, FIXED_OUTPUT_NAMES[id])),
		...(wants.audit ? [entry(ENTRY.audit, AUDIT_OUTPUT_NAME)] : []),
		...metaEntries(decision),
	];
}

/**
 * The list as Review shows it: the same entries, its fixed rows hidden (a person's answer is
 * never uncertain or pending, so they are not Review's outputs; kept, so a refresh keeps places).
 */
export function forReview(fields: ResourceMapperField[]): ResourceMapperField[] {
	return fields.map((field) =>
		isMachineOnlyEntry(field.id) ? { ...field, display: false } : field,
	);
}

/** The saved list merged with the decision as the service has it now (see the file's comment). */
export function outputsListFor(
	decision: DecisionShape,
	saved: readonly ResourceMapperField[] | undefined,
	wants: OutputsListWants = {},
): ResourceMapperField[] {
	const keys = decisionKeys(decision);
	if (!saved?.length || !savedForThisDecision(decision, saved, keys)) {
		return freshOutputsList(decision, wants);
	}

	const merged: ResourceMapperField[] = [];
	const seen = new Set<string>();
	for (const field of saved) {
		if (field.display === false) continue;
		seen.add(field.id);
		if (isFixedEntry(field.id)) {
			merged.push({
				...entry(field.id, FIXED_OUTPUT_NAMES[field.id]),
			});
		} else if (isErrorKeeper(field.id)) {
			merged.push({ ...entry(field.id, ERROR_KEEPER_NAME), removed: field.removed });
		} else if (field.id === ENTRY.audit) {
			// Once added it stays, share or none: removing it would move n8n's error output.
			merged.push({ ...entry(field.id, AUDIT_OUTPUT_NAME), removed: field.removed });
		} else if (keys.includes(field.id)) {
			merged.push({ ...entry(field.id, keyName(field.id)), removed: field.removed });
		} else {
			// Gone from the service: it keeps its output (deleted or not), so no wire after it moves.
			merged.push({
				...entry(field.id, `${keyName(field.id)} ${REMOVED_ON_SERVICE}`, true, false),
				removed: field.removed,
			});
		}
	}
	// A list saved with keys only had the fixed outputs after its keys: make that explicit.
	for (const id of FIXED_ENTRY_IDS) {
		if (!seen.has(id)) merged.push(entry(id, FIXED_OUTPUT_NAMES[id]));
	}
	const added = keys.filter((key) => !seen.has(key));
	const addAudit = wants.audit === true && !seen.has(ENTRY.audit);
	if (added.length || addAudit) {
		const keepers = merged.filter((field) => isErrorKeeper(field.id)).length;
		merged.push(entry(`${ENTRY.errorKeeperPrefix}${keepers + 1}__`, ERROR_KEEPER_NAME));
		for (const key of added) merged.push(entry(key, keyName(key)));
		if (addAudit) merged.push(entry(ENTRY.audit, AUDIT_OUTPUT_NAME));
	}
	return [...merged, ...metaEntries(decision)];
}
