/**
 * n8n's Data Tables through its REST API, as the owner (the editor's own calls): the owner's
 * personal project, a table created (or found by name), rows inserted and read back, a table
 * renamed or deleted, a column removed or added (what a team does in the Data Tables tab). Both pinned
 * n8n versions serve `/rest/projects/:projectId/data-tables` (n8n's data-table module,
 * data-table.controller.js); only n8n 2.x's Data Table node finds a table by name.
 */
import type { OwnerSession } from './n8n-executions';

const headers = (session: OwnerSession) => ({
	cookie: session.cookie,
	'browser-id': 'decision-service-setup',
	'content-type': 'application/json',
});

async function call<T>(
	session: OwnerSession,
	method: string,
	path: string,
	body?: unknown,
): Promise<T> {
	const response = await fetch(`${session.url}/rest${path}`, {
		method,
		headers: headers(session),
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
	return (JSON.parse(text) as { data: T }).data;
}

/** The owner's personal project: where the Data Table node of the owner's workflows looks. */
export async function personalProjectId(session: OwnerSession): Promise<string> {
	return (await call<{ id: string }>(session, 'GET', '/projects/personal')).id;
}

export interface DataTable {
	id: string;
	name: string;
	projectId: string;
}

export type Cell = string | number | boolean | null;
export type Row = Record<string, Cell> & { id?: number; createdAt?: string };

/** The tables of the project whose name is exactly `name`. */
export async function findTable(
	session: OwnerSession,
	projectId: string,
	name: string,
): Promise<DataTable | undefined> {
	const filter = encodeURIComponent(JSON.stringify({ name }));
	const { data } = await call<{ data: DataTable[] }>(
		session,
		'GET',
		`/projects/${projectId}/data-tables?filter=${filter}&take=50`,
	);
	return data.find((table) => table.name === name);
}

/** A table with these columns, or the one of that name already there. */
export async function ensureTable(
	session: OwnerSession,
	projectId: string,
	name: string,
	columns: ReadonlyArray<{ name: string; type: string }>,
): Promise<DataTable> {
	const found = await findTable(session, projectId, name);
	if (found) return found;
	return call<DataTable>(session, 'POST', `/projects/${projectId}/data-tables`, {
		name,
		columns: columns.map(({ name: column, type }) => ({ name: column, type })),
	});
}

/** Inserts rows (at most 1,000 a request). */
export async function insertRows(
	session: OwnerSession,
	table: DataTable,
	rows: Array<Record<string, Cell>>,
): Promise<void> {
	for (let start = 0; start < rows.length; start += 1000)
		await call(session, 'POST', `/projects/${table.projectId}/data-tables/${table.id}/insert`, {
			data: rows.slice(start, start + 1000),
			returnType: 'count',
		});
}

/** Every row of a table, oldest first. */
export async function readRows(session: OwnerSession, table: DataTable): Promise<Row[]> {
	const rows: Row[] = [];
	for (let skip = 0; ; skip += 250) {
		const { data, count } = await call<{ data: Row[]; count: number }>(
			session,
			'GET',
			`/projects/${table.projectId}/data-tables/${table.id}/rows?skip=${skip}&take=250&sortBy=${encodeURIComponent('id:asc')}`,
		);
		rows.push(...data);
		if (rows.length >= count || data.length === 0) return rows;
	}
}

/** Renames a table, as its menu in the Data Tables tab does. */
export async function renameTable(
	session: OwnerSession,
	table: DataTable,
	name: string,
): Promise<void> {
	await call(session, 'PATCH', `/projects/${table.projectId}/data-tables/${table.id}`, { name });
}

/** Deletes a table and its rows. */
export async function deleteTable(session: OwnerSession, table: DataTable): Promise<void> {
	await call(session, 'DELETE', `/projects/${table.projectId}/data-tables/${table.id}`);
}

/** Removes a column (and its values) from a table, by the column's name. */
export async function deleteColumn(
	session: OwnerSession,
	table: DataTable,
	name: string,
): Promise<void> {
	const base = `/projects/${table.projectId}/data-tables/${table.id}/columns`;
	const columns = await call<Array<{ id: string; name: string }>>(session, 'GET', base);
	const column = columns.find((each) => each.name === name);
	if (!column) throw new Error(`table ${table.name} has no column ${name}`);
	await call(session, 'DELETE', `${base}/${column.id}`);
}

/** Adds a column to a table (at the end). */
export async function addColumn(
	session: OwnerSession,
	table: DataTable,
	column: { name: string; type: string },
): Promise<void> {
	await call(session, 'POST', `/projects/${table.projectId}/data-tables/${table.id}/columns`, {
		name: column.name,
		type: column.type,
	});
}
