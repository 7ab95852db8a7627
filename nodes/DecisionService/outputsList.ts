/**
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
import type { ResourceMapperField } from 'n8n-workflow';
import type { Decision } from '../../src/contract';
import { ERROR_KEEPER_NAME, FIXED_OUTPUT_NAMES, META, NO_LABEL_KEY, SLOT } from './outputs';

export const REMOVED_ON_SERVICE = '(no longer on the service)';

type DecisionShape = Pick<
	Decision,
	'slug' | 'type' | 'instructions' | 'options' | 'levels' | 'labels'
>;

const FIXED_IDS = [SLOT.uncertain, SLOT.pending, SLOT.other] as const;

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
	const keys =
		(decision.type === 'route'
			? decision.options
			: decision.type === 'score'
				? decision.levels
				: decision.labels) ?? [];
	return decision.type === 'classify' ? [...keys, NO_LABEL_KEY] : [...keys];
}

function keyName(key: string): string {
	return key === NO_LABEL_KEY ? 'No Label' : key;
}

function metaEntries(decision: DecisionShape): ResourceMapperField[] {
	return [
		entry(META.decision, decision.slug, false),
		entry(META.question, decision.instructions, false),
		entry(META.type, decision.type, false),
	];
}

const isFixed = (id: string) => (FIXED_IDS as readonly string[]).includes(id);
const isKeeper = (id: string) => id.startsWith(SLOT.errorKeeperPrefix);

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
	const slug = saved.find((field) => field.id === META.decision);
	if (slug) return slug.displayName === decision.slug;
	return saved.some((field) => keys.includes(field.id));
}

/** The list for a decision picked anew: its keys, then Uncertain, Pending Review and Other. */
export function freshOutputsList(decision: DecisionShape): ResourceMapperField[] {
	return [
		...decisionKeys(decision).map((key) => entry(key, keyName(key))),
		...FIXED_IDS.map((id) => entry(id, FIXED_OUTPUT_NAMES[id])),
		...metaEntries(decision),
	];
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
		if (isFixed(field.id)) {
			merged.push({
				...entry(field.id, FIXED_OUTPUT_NAMES[field.id as keyof typeof FIXED_OUTPUT_NAMES]),
			});
		} else if (isKeeper(field.id)) {
			merged.push({ ...entry(field.id, ERROR_KEEPER_NAME), removed: field.removed });
		} else if (keys.includes(field.id)) {
			merged.push({ ...entry(field.id, keyName(field.id)), removed: field.removed });
		} else if (field.removed !== true) {
			merged.push(entry(field.id, `${keyName(field.id)} ${REMOVED_ON_SERVICE}`));
		}
		// else: removed by the user and gone from the service; it had no output, so dropping it moves nothing.
	}
	// A list saved with keys only had the fixed outputs after its keys: make that explicit.
	for (const id of FIXED_IDS) {
		if (!seen.has(id)) merged.push(entry(id, FIXED_OUTPUT_NAMES[id]));
	}
	const added = keys.filter((key) => !seen.has(key));
	if (added.length) {
		const keepers = merged.filter((field) => isKeeper(field.id)).length;
		merged.push(entry(`${SLOT.errorKeeperPrefix}${keepers + 1}__`, ERROR_KEEPER_NAME));
		for (const key of added) merged.push(entry(key, keyName(key)));
	}
	return [...merged, ...metaEntries(decision)];
}
