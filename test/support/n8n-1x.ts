// The `n8n 1.x` jest project: the real-n8n harness runs this version (harness/n8n-install.ts).
import { N8N_1X } from '../../harness/n8n-install';

process.env.N8N_TEST_VERSION = N8N_1X;
