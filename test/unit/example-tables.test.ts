/**
 * Every example that creates a table the node's rows go into creates it with the node's columns:
 * n8n's Data Table refuses a row with a column the table lacks ("unknown column name"), so a
 * table created by one example with fewer columns would make another example's store fail.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUDIT_QUEUE_COLUMNS } from '../../src/answer/audit';
import { FIGURES_ROW_COLUMNS } from '../../src/evaluate';
import { LABELED_ROW_COLUMNS } from '../../src/answer';

const EXAMPLES = join(__dirname, '../../examples');
const COLUMNS: Record<string, ReadonlyArray<{ name: string; type: string }>> = {
	decision_reviews: LABELED_ROW_COLUMNS,
	decision_audit_queue: AUDIT_QUEUE_COLUMNS,
	decision_quality: FIGURES_ROW_COLUMNS,
};

interface ExampleNode {
	name: string;
	type: string;
	parameters: {
		operation?: string;
		tableName?: string;
		columns?: { column?: Array<{ name: string; type: string }> };
	};
}

const creates = readdirSync(EXAMPLES)
	.filter((file) => file.endsWith('.json'))
	.flatMap((file) =>
		(JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')).nodes as ExampleNode[])
			.filter((node) => node.type === 'n8n-nodes-base.dataTable')
			.filter((node) => node.parameters.operation === 'create')
			.map((node) => ({ file, node })),
	);

describe('tables the examples create', () => {
	it('are the node’s tables', () => {
		expect(creates.length).toBeGreaterThanOrEqual(4);
		for (const { node } of creates)
			expect(Object.keys(COLUMNS)).toContain(node.parameters.tableName);
	});

	it.each(creates.map(({ file, node }) => [file, node.name, node] as const))(
		'%s, %s: the node’s columns, in order',
		(_file, _name, node) => {
			const expected = COLUMNS[node.parameters.tableName!];
			expect(node.parameters.columns?.column).toEqual(
				expected.map((column) => ({ name: column.name, type: column.type })),
			);
		},
	);
});
