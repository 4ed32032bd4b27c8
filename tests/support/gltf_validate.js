// gltf_validate.js FILE... - each glTF file (.gltf with the files it names
// beside it, or .glb) through the Khronos glTF-Validator (npm's
// gltf-validator): a file named *.nonconforming.* must draw at least one
// error (the tests wrote it outside the specification on purpose), any
// other none.  One line per file, then "N passed, N failed".  Exit 0, 1 on
// a failure, 77 when the validator is not installed (NODE_PATH is searched:
// tests/integration/test_gltf_validator.sh points it at npm's global root).
'use strict';
const fs = require('fs');
const path = require('path');

let validator;
try {
	validator = require('gltf-validator');
} catch (e) {
	console.log('SKIP: the Khronos glTF-Validator is not installed (npm install -g gltf-validator)');
	process.exit(77);
}

async function check(file) {
	const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
		uri: file,
		maxIssues: 20,
		// A buffer a .gltf names, beside it (the tests' own files: no escape
		// to guard against here).
		externalResourceFunction: (uri) => new Promise((resolve, reject) => {
			try {
				resolve(new Uint8Array(fs.readFileSync(
					path.join(path.dirname(file), decodeURIComponent(uri)))));
			} catch (e) {
				reject(e.toString());
			}
		}),
	});
	const errors = report.issues.messages.filter((m) => m.severity === 0);
	const want = path.basename(file).includes('.nonconforming.') ? 'errors' : 'no error';
	const ok = want === 'errors' ? report.issues.numErrors > 0 : report.issues.numErrors === 0;
	const first = errors.slice(0, 3).map((m) => `${m.code} at ${m.pointer || m.offset}: ${m.message}`);
	console.log(`${ok ? 'PASS' : 'FAIL'}  ${path.basename(file)}: ${report.issues.numErrors} ` +
		`errors, ${report.issues.numWarnings} warnings (want ${want})` +
		(first.length > 0 ? '\n      ' + first.join('\n      ') : ''));
	return ok;
}

(async () => {
	let passed = 0, failed = 0;
	for (const f of process.argv.slice(2)) {
		let ok = false;
		try {
			ok = await check(f);
		} catch (e) {
			console.log(`FAIL  ${path.basename(f)}: the validator failed: ${e}`);
		}
		if (ok)
			passed++;
		else
			failed++;
	}
	console.log(`gltf-validator: ${passed} passed, ${failed} failed`);
	process.exit(failed > 0 || passed === 0 ? 1 : 0);
})();
