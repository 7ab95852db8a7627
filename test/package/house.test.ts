/**
 * The size rules of issue 36, measured as scripts/house.ts measures them: a shipped file over
 * LONG_FILE_LINES lines says why in its first lines ("Long because …"). The function rule
 * (MAX_FUNCTION_LINES) is ESLint's `max-lines-per-function`, set to count the same lines.
 */
import { LONG_FILE_LINES, longFiles } from '../../scripts/house';

describe('shipped files', () => {
	it(`over ${LONG_FILE_LINES} lines say why in their first lines ("Long because …")`, () => {
		const silent = longFiles()
			.filter((each) => !each.saysWhy)
			.map((each) => `${each.file} (${each.lines} lines)`);
		expect(silent).toEqual([]);
	});
});
