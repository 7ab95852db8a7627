/**
 * Measures the shipped code's shape (issue 36): the longest functions and the files over 260 lines
 * (each must say why in its first lines). Reads the TypeScript sources with the compiler's parser;
 * runs nothing. Run: npx tsx scripts/house.ts [--top 10]. Enforced: ESLint's max-lines-per-function
 * (eslint.config.mjs) counts a function's lines as functionSizes does (blank lines, comments and
 * IIFEs included); test/package/house.test.ts fails on a long file that does not say why.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..');
const SHIPPED = ['nodes', 'src', 'credentials'];
export const MAX_FUNCTION_LINES = 80;
export const LONG_FILE_LINES = 260;

function sources(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return sources(path);
		return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
	});
}

export interface FunctionSize {
	file: string;
	name: string;
	lines: number;
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
	const named = node as ts.Node & { name?: ts.Node };
	if (named.name) return named.name.getText(source);
	const parent = node.parent;
	if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))
		return parent.name.getText(source);
	return '(anonymous)';
}

/** Every function's length in lines, first line to last, of the shipped sources. */
export function functionSizes(): FunctionSize[] {
	const sizes: FunctionSize[] = [];
	for (const file of SHIPPED.flatMap((dir) => sources(join(ROOT, dir)))) {
		const source = ts.createSourceFile(
			file,
			readFileSync(file, 'utf8'),
			ts.ScriptTarget.Latest,
			true,
		);
		const visit = (node: ts.Node) => {
			if (ts.isFunctionLike(node) && 'body' in node && node.body) {
				const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
				const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
				sizes.push({
					file: relative(ROOT, file),
					name: nameOf(node, source),
					lines: end - start + 1,
				});
			}
			ts.forEachChild(node, visit);
		};
		visit(source);
	}
	return sizes.sort((a, b) => b.lines - a.lines);
}

/** The shipped files over LONG_FILE_LINES lines, and whether their first lines say why. */
export function longFiles(): Array<{ file: string; lines: number; saysWhy: boolean }> {
	return SHIPPED.flatMap((dir) => sources(join(ROOT, dir)))
		.map((file) => {
			const text = readFileSync(file, 'utf8');
			const lines = text.split('\n').length;
			const head = text.split('\n').slice(0, 20).join('\n');
			return { file: relative(ROOT, file), lines, saysWhy: /Long because/i.test(head) };
		})
		.filter((each) => each.lines > LONG_FILE_LINES)
		.sort((a, b) => b.lines - a.lines);
}

if (require.main === module) {
	const top = Number(process.argv[process.argv.indexOf('--top') + 1]) || 10;
	console.log(`Longest shipped functions (limit ${MAX_FUNCTION_LINES} lines):`);
	for (const each of functionSizes().slice(0, top))
		console.log(`  ${String(each.lines).padStart(4)}  ${each.file}  ${each.name}`);
	console.log(`Shipped files over ${LONG_FILE_LINES} lines (each says why: "Long because"):`);
	for (const each of longFiles())
		console.log(
			`  ${String(each.lines).padStart(4)}  ${each.file}  ${each.saysWhy ? 'says why' : 'SAYS NOTHING'}`,
		);
}
