import { runSimBench } from './sim';

await runSimBench();
