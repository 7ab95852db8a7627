/**
 * The n8n nodes the example generators build (scripts/make-quality-watch-example.ts,
 * scripts/make-review-store.ts, scripts/make-audit-example.ts): n8n's own Data Table, No Op, Edit Fields and sticky notes, each
 * as n8n saves it. One builder per node kind, so the examples stay alike.
 */

export const dataTable = 'n8n-nodes-base.dataTable';

export type Node = {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	[field: string]: unknown;
};

export const table = (name: string) => ({ __rl: true, mode: 'name', value: name });

/** Data Table: create the table when it is missing (n8n 2.x: Reuse Existing Tables). */
export function ensureTable(
	id: string,
	name: string,
	tableName: string,
	columns: ReadonlyArray<{ name: string; type: string }>,
	position: [number, number],
): Node {
	return {
		id,
		name,
		type: dataTable,
		typeVersion: 1.1,
		position,
		parameters: {
			resource: 'table',
			operation: 'create',
			tableName,
			columns: { column: columns.map((column) => ({ name: column.name, type: column.type })) },
			options: { createIfNotExists: true },
		},
	};
}

/** Data Table: insert each item as a row, its fields matched to the columns by name. */
export function insertRows(
	id: string,
	name: string,
	tableName: string,
	position: [number, number],
): Node {
	return {
		id,
		name,
		type: dataTable,
		typeVersion: 1.1,
		position,
		parameters: {
			resource: 'row',
			operation: 'insert',
			dataTableId: table(tableName),
			columns: {
				mappingMode: 'autoMapInputData',
				value: {},
				matchingColumns: [],
				schema: [],
				attemptToConvertTypes: false,
				convertFieldsToString: false,
			},
			options: {},
		},
	};
}

/**
 * Data Table: each item stored as the row whose `column` holds the item's own value (updated in
 * place when it is there, else inserted), its fields matched to the columns by name.
 */
export function upsertRows(
	id: string,
	name: string,
	tableName: string,
	column: string,
	position: [number, number],
): Node {
	const insert = insertRows(id, name, tableName, position);
	return {
		...insert,
		parameters: {
			...insert.parameters,
			operation: 'upsert',
			matchType: 'allConditions',
			filters: {
				conditions: [{ keyName: column, condition: 'eq', keyValue: `={{ $json.${column} }}` }],
			},
		},
	};
}

/** A Set node whose output is one field of the item, as it is: a row ready for a Data Table. */
export function fieldAsItem(
	id: string,
	name: string,
	field: string,
	position: [number, number],
): Node {
	return {
		id,
		name,
		type: 'n8n-nodes-base.set',
		typeVersion: 3.4,
		position,
		parameters: { mode: 'raw', jsonOutput: `={{ $json.${field} }}`, options: {} },
	};
}

export const noOp = (id: string, name: string, position: [number, number]): Node => ({
	id,
	name,
	type: 'n8n-nodes-base.noOp',
	typeVersion: 1,
	position,
	parameters: {},
});

export const sticky = (
	id: string,
	name: string,
	position: [number, number],
	size: [number, number],
	content: string,
): Node => ({
	id,
	name,
	type: 'n8n-nodes-base.stickyNote',
	typeVersion: 1,
	position,
	parameters: { width: size[0], height: size[1], content },
});

/** Evaluate on the stored rows: the input the decision saw (JSON text), the answer a person gave. */

/** A wire to a node's first input. */
export const to = (node: string, index = 0) => [{ node, type: 'main', index }];
