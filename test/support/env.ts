// n8n-core logs node errors through its own logger; the tests assert on them instead.
process.env.N8N_LOG_LEVEL = 'silent';
