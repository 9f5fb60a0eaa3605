// The last step of a build: marks the directory given (dist or web/dist) as built now, with the
// dependencies locked now (bin/dist-freshness.js reads it: npm start, bin/scanhub, the prepare step).
import { writeBuildStamp } from '../bin/dist-freshness.js';

const directory = process.argv[2];
if (directory !== 'dist' && directory !== 'web/dist') throw new Error('usage: build-stamp.ts dist|web/dist');
writeBuildStamp(directory);
