/**
 * The least a client can do: `count` decides sent at once, each on a new connection (as n8n's
 * HTTP helper sends them), nothing evaluated, checked or kept. Run in a child process by
 * bench/makespan.ts (the service alone: how fast the sandbox on this machine takes a burst, a floor
 * for every contender) so that the sandbox's process only serves. Arguments: the decide URL, the
 * key, how many. Exits once every request is answered or failed (the parent reads the outcome
 * from the sandbox's record).
 */
import { request } from 'node:http';

const [url, key, countText] = process.argv.slice(2);
const count = Number(countText);
if (!url || !key || !Number.isInteger(count) || count < 1 || count > 1_000)
	throw new Error('usage: burst-client <decide URL> <key> <count, 1 to 1000>');

let ended = 0;
const done = () => {
	ended += 1;
	if (ended === count) process.exit(0);
};
for (let index = 0; index < count; index++) {
	const body = JSON.stringify({
		input: { text: `Message ${index}: how do I export my data? Limited offer inside.` },
	});
	const sent = request(
		url,
		{
			method: 'POST',
			agent: false,
			headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
			timeout: 60_000,
		},
		(response) => {
			response.resume();
			response.on('end', done);
		},
	);
	sent.on('error', done);
	sent.end(body);
}
