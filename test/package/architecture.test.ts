/**
 * docs/ARCHITECTURE.md names every shipped file, and every path it names exists; the docs' links
 * and commands work: relative links resolve to files, anchors exist, `npm run X` names a script.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

function filesUnder(folder: string): string[] {
	return readdirSync(join(root, folder)).flatMap((name) => {
		const path = `${folder}/${name}`;
		return statSync(join(root, path)).isDirectory() ? filesUnder(path) : [path];
	});
}

describe('docs/ARCHITECTURE.md', () => {
	const architecture = read('docs/ARCHITECTURE.md');
	const named = [...architecture.matchAll(/`((?:nodes|credentials|src)\/[^`\s]+\.[a-z]+)`/g)].map(
		(match) => match[1],
	);

	it.each(['nodes', 'credentials', 'src'].flatMap(filesUnder))('names %s', (path) => {
		expect(named).toContain(path);
	});

	it('names only files that exist', () => {
		expect(named.filter((path) => !existsSync(join(root, path)))).toEqual([]);
	});
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/[`*_]/g, '')
		.replace(/[^\p{L}\p{N} -]/gu, '')
		.replace(/ /g, '-');
}

function anchorsOf(markdown: string): string[] {
	const withoutCode = markdown.replace(/```[\s\S]*?```/g, '');
	return [...withoutCode.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1]));
}

const documents = [
	'README.md',
	'CONTRIBUTING.md',
	'CHANGELOG.md',
	...readdirSync(join(root, 'docs'))
		.filter((name) => name.endsWith('.md'))
		.map((name) => `docs/${name}`),
];

describe.each(documents)('%s', (document) => {
	const text = read(document);
	const links = [...text.replace(/```[\s\S]*?```/g, '').matchAll(/\]\(([^)\s]+)\)/g)]
		.map((match) => match[1])
		.filter((target) => !/^[a-z]+:/i.test(target));

	it('links to files that exist, at anchors that exist', () => {
		const broken = links.filter((target) => {
			const [path, anchor] = target.split('#');
			const file = path === '' ? document : relative(root, join(root, dirname(document), path));
			if (!existsSync(join(root, file))) return true;
			if (anchor === undefined || !file.endsWith('.md')) return false;
			return !anchorsOf(read(file)).includes(anchor);
		});
		expect(broken).toEqual([]);
	});

	it('names only npm scripts that package.json has', () => {
		const scripts = Object.keys(
			(JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts,
		);
		const used = [...text.matchAll(/npm run ([a-z][\w:-]*)/g)].map((match) => match[1]);
		expect(used.filter((name) => !scripts.includes(name))).toEqual([]);
	});
});

describe('documentation links in the package', () => {
	const readme = anchorsOf(read('README.md'));
	const urls = [
		...read('credentials/DecisionServiceApi.credentials.ts').matchAll(
			/https:\/\/github\.com\/decision-service\/n8n-nodes-decision-service#([\w-]+)/g,
		),
		...read('nodes/DecisionService/DecisionService.node.json').matchAll(
			/https:\/\/github\.com\/decision-service\/n8n-nodes-decision-service#([\w-]+)/g,
		),
	].map((match) => match[1]);

	it.each(urls)('#%s is a section of the README (or the README itself)', (anchor) => {
		expect(anchor === 'readme' || readme.includes(anchor)).toBe(true);
	});
});
