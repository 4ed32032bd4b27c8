#!/bin/sh
# animd check / inspect / sample on the generated demo assets and on files
# broken on purpose: exit codes, message format, and the JSON contract.
. "$(dirname "$0")/lib.sh"

demo=$TMP/demo
mkdir -p "$demo/sub"
"$BUILD/gen/gen_demo" "$demo" || { echo "gen_demo failed"; exit 1; }

# check: a good tree passes, quietly unless -v.
expect_status 0 "$ANIMD" check "$demo"
[ -s "$TMP/out" ] && bad "check printed on success without -v" || ok
expect_status 0 "$ANIMD" check -v "$demo"
expect_match '/walker\.md5anim: ok' "$TMP/out"
expect_match '/orbit\.md5camera: ok' "$TMP/out"
expect_status 0 "$ANIMD" check --mesh "$demo/walker.md5mesh" "$demo/walker.md5anim" "$demo/idle.md5anim"

# A broken file in a subdirectory: located error, exit 1, others still checked.
sed 's/^numJoints 10$/numJoints 11/' "$demo/walker.md5anim" >"$demo/sub/broken.md5anim"
expect_status 1 "$ANIMD" check "$demo"
expect_match '^.*/sub/broken\.md5anim:[0-9]+:[0-9]+: error: ' "$TMP/out"
[ "$(wc -l <"$TMP/out")" -eq 1 ] && ok || bad "expected exactly one problem line"
rm "$demo/sub/broken.md5anim"

# A frame block one number short.
awk '/^frame 3 \{/{f=1} f&&/^\t/{sub(/ [^ ]+$/,""); f=0} {print}' "$demo/walker.md5anim" >"$TMP/short.md5anim"
expect_status 1 "$ANIMD" check "$TMP/short.md5anim"
expect_match 'short\.md5anim:[0-9]+:[0-9]+: error: ' "$TMP/out"

# An anim that does not fit a mesh (a renamed joint).
sed 's/"head"/"skull"/' "$demo/walker.md5anim" >"$TMP/renamed.md5anim"
expect_status 1 "$ANIMD" check --mesh "$demo/walker.md5mesh" "$TMP/renamed.md5anim"
expect_match 'renamed\.md5anim: error: does not fit mesh .*head|skull' "$TMP/out"

# What Doom never reads (a block after the last one) is a located note:
# the file loads, and says where the unread part starts.
cp "$demo/walker.md5anim" "$TMP/tail.md5anim"
printf 'frame 99 {\n}\n' >>"$TMP/tail.md5anim"
expect_status 0 "$ANIMD" check -v "$TMP/tail.md5anim"
expect_match '^.*tail\.md5anim:[0-9]+:1: note: "frame" after the last block: what follows is not read' "$TMP/out"
expect_status 0 "$ANIMD" check --json "$TMP/tail.md5anim"
expect_jq '.ok and (.notes | length) == 1' "$TMP/out"

# Missing paths and unknown formats are problems too; usage errors are 2.
expect_status 1 "$ANIMD" check "$TMP/nope.md5mesh"
echo hello >"$TMP/notes.txt"
expect_status 1 "$ANIMD" check "$TMP/notes.txt"
expect_match 'unknown format' "$TMP/out"
expect_status 2 "$ANIMD" check
expect_status 2 "$ANIMD" frobnicate

# Issue 8, D2: a FIFO or a device named like an asset is refused at once,
# given by name or met in a tree (timeout: a check that waits for a writer
# fails here instead of hanging).
mkdir "$TMP/odd" && mkfifo "$TMP/odd/pipe.md5anim" && ln -s /dev/zero "$TMP/odd/zero.md5mesh"
expect_status 1 timeout 10 "$ANIMD" check "$TMP/odd/pipe.md5anim"
expect_match 'pipe\.md5anim: error: is a FIFO, not a regular file' "$TMP/out"
expect_status 1 timeout 10 "$ANIMD" check "$TMP/odd/zero.md5mesh"
expect_match 'zero\.md5mesh: error: is a character device, not a regular file' "$TMP/out"
expect_status 1 timeout 10 "$ANIMD" check "$TMP/odd"
[ "$(wc -l <"$TMP/out")" -eq 2 ] && ok || bad "expected two problem lines for the odd tree"

# Paths are whatever bytes a directory holds: --json stays valid JSON, and
# no control character (DEL, C1 as UTF-8, a byte of C1 read as Latin-1)
# reaches the output raw.
mkdir "$TMP/names"
cp "$demo/idle.md5anim" "$TMP/names/c1$(printf '\302\233')ok.md5anim"
cp "$demo/idle.md5anim" "$TMP/names/bad$(printf '\233\377\177\001').md5anim"
printf 'MD5Version 10\n' >"$TMP/names/nl$(printf '\n\302\205')broken.md5anim"
expect_status 1 "$ANIMD" check --json "$TMP/names"
[ "$(wc -l <"$TMP/out")" -eq 3 ] && ok || bad "expected three JSON lines for the names tree"
if LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$TMP/out" ||
	LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$TMP/out"; then
	bad "check --json printed a raw control character"; od -c "$TMP/out" | head -20
else ok; fi
jq -e -s 'length == 3 and all(.[]; .path | type == "string")' "$TMP/out" >/dev/null && ok ||
	bad "check --json of odd names is not valid JSON"
jq -e -s 'map(.path | ltrimstr("'"$TMP"'/names/")) | sort ==
	["bad\u009b\u00ff\u007f\u0001.md5anim", "c1\u009bok.md5anim", "nl\n\u0085broken.md5anim"]' \
	"$TMP/out" >/dev/null && ok || { bad "check --json names"; cat "$TMP/out"; }
# The text lines too: no byte a terminal obeys (ESC, the newline inside a
# name, DEL) goes out raw; each is \xNN.
cp "$demo/idle.md5anim" "$TMP/names/esc$(printf '\033')[31mred.md5anim"
expect_status 1 "$ANIMD" check -v "$TMP/names"
if LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$TMP/out"; then
	bad "check printed a raw control character"; od -c "$TMP/out" | head -20
else ok; fi
expect_match 'esc\\x1b\[31mred\.md5anim: ok' "$TMP/out"
expect_match 'nl\\x0a.*broken\.md5anim:[0-9]+:[0-9]+: error: ' "$TMP/out"
rm "$TMP/names/esc$(printf '\033')[31mred.md5anim"
expect_status 0 "$ANIMD" inspect --json "$TMP/names/c1$(printf '\302\233')ok.md5anim"
expect_jq '.asset | endswith("c1\u009bok.md5anim")' "$TMP/out"

# inspect --json: the documented fields.
expect_status 0 "$ANIMD" inspect --json "$demo/walker.md5anim"
cp "$TMP/out" "$TMP/inspect.json"
expect_jq '.format == "md5anim" and .version == 10 and .axes.up == "z_up" and .axes.handedness == "right"' "$TMP/inspect.json"
expect_jq '.skeleton.joint_count == 10 and .skeleton.joints[3].name == "head" and .skeleton.joints[3].parent == 2' "$TMP/inspect.json"
expect_jq '.clips[0].name == "walker" and .clips[0].frame_rate == 24 and .clips[0].frame_count == 25 and .clips[0].loop == "loop"' "$TMP/inspect.json"
expect_jq '(.clips[0].duration - 1.0 | fabs) < 1e-9' "$TMP/inspect.json"
# Memory: the parts add up; the clip's 25 frames of 10 joints are in it,
# compressed (less than their 40-byte transforms, within the precision),
# and the clip list's one pointer.
expect_jq '.memory | .total == .skeleton + .clips + .meshes + .camera + .emitters + .other' "$TMP/inspect.json"
expect_jq '.clips[0].memory_bytes < 25 * 10 * 40 and .clips[0].key_index_bytes == 0 and .memory.clips == .clips[0].memory_bytes + 8 and .memory.meshes == 0' "$TMP/inspect.json"
# precision and shell auto: 1e-6 and 1/10 of the rig's size (clip.h).
expect_jq '.clips[0].compression | .bytes > 0 and .worst_error <= .precision and .precision > 0 and (.precision / .shell_distance - 1e-5 | fabs) < 1e-8' "$TMP/inspect.json"
expect_status 0 "$ANIMD" inspect --json "$demo/walker.md5mesh"
expect_jq '.meshes | length == 9 and .[0].vertex_count == 8 and .[0].triangle_count == 12 and .[0].skinned' "$TMP/out"
expect_jq '.memory.meshes == ([.meshes[].memory_bytes] | add) + 9 * 8 and .memory.clips == 0' "$TMP/out"
expect_status 0 "$ANIMD" inspect --json "$demo/orbit.md5camera"
expect_jq '.cameras[0].cuts == [40, 70] and .cameras[0].frame_rate == 30' "$TMP/out"
expect_status 0 "$ANIMD" inspect "$demo/walker.md5anim"
expect_match '^clip        "walker": 1 s, loop, 10 joints, 25 frames at 24 fps, bounds$' "$TMP/out"
expect_match '^ {12}[0-9]+ bytes, 23 animated components, compressed \([0-9]+ bytes of frames\): worst error [0-9.e-]+ \(precision [0-9.e-]+ at [0-9.e-]+ from each joint\)$' "$TMP/out"
expect_match '^memory      [0-9]+ bytes loaded: skeleton [0-9]+, clips [0-9]+, meshes 0, camera 0, emitters 0, other [0-9]+$' "$TMP/out"

# M2: the demo lantern (inspect's sequences, global sequences, emitters,
# bone flags; sample's emitters space and sequences by animation id).
expect_status 0 "$ANIMD" inspect --json "$demo/lantern.m2"
cp "$TMP/out" "$TMP/m2.json"
expect_jq '.format == "m2" and .version == 256 and .axes.up == "z_up" and .axes.handedness == "right"' "$TMP/m2.json"
expect_jq '(.clips | length) == 3 and .clips[0].name == "0" and .clips[0].looping and .clips[2].alias_of == null and .clips[2].flags == 96 and .clips[1].looping' "$TMP/m2.json"
expect_jq '.clips[1].duration == 0 and .clips[0].replay.min == 0 and (.global_sequences | length) == 1' "$TMP/m2.json"
expect_jq '(.emitters | length) == 1 and .emitters[0].type == 1 and (.emitters[0].colors | length) == 3' "$TMP/m2.json"
expect_jq '.skeleton.joints[0].bone == 2 and .skeleton.joints[0].billboard == "cylindrical_z" and .skeleton.joints[1].billboard == null' "$TMP/m2.json"
# What the game ignores is a located note, not a refusal (the demo's junk
# playable lookup, as real classic files hold).
expect_jq '(.notes | length) == 1 and (.notes[0] | test("lantern.m2: offset 0x[0-9a-f]+: note: the playable animation lookup entry 1 is -404"))' "$TMP/m2.json"
expect_status 0 "$ANIMD" check -v "$demo/lantern.m2"
expect_match '^.*lantern.m2: offset 0x[0-9a-f]+: note: the playable animation lookup' "$TMP/out"
expect_status 0 "$ANIMD" check --json "$demo/lantern.m2"
expect_jq '.ok and (.notes | length) == 1' "$TMP/out"
expect_jq '.meshes[0].vertex_count == 16 and .meshes[0].triangle_count > 0' "$TMP/m2.json"
# Attachments and events: the bone the file names and the joint it became;
# the clips' moments, from half-open ranges over times stored out of order
# (Stand's two creaks, none in Closed, the variation's one in its window and
# one 32.767 s past it, listed as the file has it, never passed).
expect_jq '.attachments == [{"index": 0, "id": 11, "bone": 0, "joint": 2, "position": [0.5, 0, 1.39999998]}]' "$TMP/m2.json"
expect_jq '.events == [{"index": 0, "id": "$CSD", "data": 7, "bone": 1, "joint": 1, "position": [0, 0, 2]}]' "$TMP/m2.json"
expect_jq '[.clips[].events] == [[{"time": 0.5, "event": 0}, {"time": 1.5, "event": 0}], [], [{"time": 0.5, "event": 0}, {"time": 32.767, "event": 0}]]' "$TMP/m2.json"
expect_status 0 "$ANIMD" inspect "$demo/lantern.m2"
expect_match '^attachment  0: id 11 on bone 0 "bone0" at 0.5 0 1.4$' "$TMP/out"
expect_match '^event       0: "\$CSD", data 7, on bone 1 "bone1" at 0 0 2$' "$TMP/out"
expect_match '^            events: 0 at 0.5 s, 0 at 1.5 s$' "$TMP/out"
expect_match '^            events: 0 at 0.5 s, 0 at 32.767 s$' "$TMP/out"
# M2 memory: clips with their list (one spare entry) and what they share.
expect_jq '.memory.emitters > 0 and .memory.clips > ([.clips[].memory_bytes] | add) + 4 * 8 and .memory.meshes == .meshes[0].memory_bytes + 8' "$TMP/m2.json"
expect_status 0 "$ANIMD" sample "$demo/lantern.m2" --time 0.7 --space emitters --json
expect_jq '.space == "emitters" and (.emitters | length) == 1 and (.emitters[0].m | length) == 12' "$TMP/out"
expect_jq '.emitters[0].params | keys == ["area_length","area_width","emission_rate","emission_speed","gravity","horizontal_range","lifespan","speed_variation","vertical_range","z_source"]' "$TMP/out"
expect_jq '(.emitters[0].enabled | type) == "boolean" and .emitters[0].index == 0' "$TMP/out"
expect_status 0 "$ANIMD" sample "$demo/lantern.m2" --clip id=0.1 --time 0.5 --space skin --json
expect_jq '.clip == "2" and (.joints | length) == 3 and .joints[0].billboard == "cylindrical_z"' "$TMP/out"
expect_status 0 "$ANIMD" sample "$demo/lantern.m2" --clip '#2' --time 0.5 --space skin --json
expect_jq '.clip == "2"' "$TMP/out"
expect_status 1 "$ANIMD" sample "$demo/lantern.m2" --clip id=7 --time 0.5
expect_status 0 "$ANIMD" sample "$demo/lantern.m2" --time 0.5 --space vertices --json
expect_jq '(.meshes[0].positions | length) == 16' "$TMP/out"
expect_status 1 "$ANIMD" sample "$demo/walker.md5anim" --time 0 --space emitters
expect_match 'emitters space is M2' "$TMP/err"
# Attachment points: inspect lists the lantern's (id 11 on file bone 0,
# which is joint 2: the file lists bones child first); sample's
# attachments space gives its model-space transform, its joint's skin
# matrix times T(position), and whether a model hung there animates.
expect_jq '(.attachments | length) == 1 and .attachments[0] as $p | $p.index == 0 and $p.id == 11 and $p.bone == 0 and $p.joint == 2 and ([$p.position[0] - 0.5, $p.position[1], $p.position[2] - 1.4] | map(fabs) | max) < 1e-6' "$TMP/m2.json"
expect_status 0 "$ANIMD" inspect "$demo/lantern.m2"
expect_match '^attachment  0: id 11 on bone 0 "bone0" at 0\.5 0 1\.4$' "$TMP/out"
expect_status 0 "$ANIMD" sample "$demo/lantern.m2" --time 0.7 --space attachments --json
cp "$TMP/out" "$TMP/points.json"
expect_jq '.space == "attachments" and (.attachments | length) == 1 and (.attachments[0] | keys) == ["animate","bone","id","index","joint","m","position"]' "$TMP/points.json"
expect_jq '.attachments[0] | .index == 0 and .id == 11 and .bone == 0 and .joint == 2 and .animate == true and (.m | length) == 12' "$TMP/points.json"
expect_status 0 "$ANIMD" sample "$demo/lantern.m2" --time 0.7 --space skin --json
jq -s '{point: .[0].attachments[0], skin: .[1].joints}' "$TMP/points.json" "$TMP/out" >"$TMP/both.json"
expect_jq '.point as $p | .skin[$p.joint].m as $k | $p.position as $x | ([range(0; 3) as $r | range(0; 3) as $c | $k[4 * $r + $c] - $p.m[4 * $r + $c] | fabs] | max) < 1e-6 and ([range(0; 3) as $r | $k[4 * $r] * $x[0] + $k[4 * $r + 1] * $x[1] + $k[4 * $r + 2] * $x[2] + $k[4 * $r + 3] - $p.m[4 * $r + 3] | fabs] | max) < 1e-5' "$TMP/both.json"
expect_status 0 "$ANIMD" sample "$demo/lantern.m2" --time 0.7 --space attachments
# The lantern's clips are compressed: the point is where the raw keys put it
# (0.2644 0.1754 1.2964) within the codec's precision (auto: finer than 0.004).
expect_match '^attachment 0 id 11 on bone0 at( +[-+]?[0-9]+\.[0-9]+){3}$' "$TMP/out"
expect_jq '.attachments[0].m as $m | ([$m[3] - 0.2644, $m[7] - 0.1754, $m[11] - 1.2964] | map(fabs) | max) < 0.0045' "$TMP/points.json"
# An M2 without points gives an empty list; a file that is not an M2 has none.
mkdir "$TMP/seeds" && "$BUILD/gen/gen_m2_seeds" "$TMP/seeds" >/dev/null || { echo "gen_m2_seeds failed"; exit 1; }
expect_status 0 "$ANIMD" sample "$TMP/seeds/synth.m2" --time 0.5 --space attachments --json
expect_jq '.space == "attachments" and .attachments == []' "$TMP/out"
expect_status 1 "$ANIMD" sample "$demo/walker.md5anim" --time 0 --space attachments
expect_match 'has no attachment points: the attachments space is M2' "$TMP/err"
# A broken M2 is refused with its file offset.
head -c 300 "$demo/lantern.m2" >"$TMP/cut.m2"
expect_status 1 "$ANIMD" check "$TMP/cut.m2"
expect_match 'cut\.m2: offset 0x[0-9a-f]+: error: ' "$TMP/out"
printf 'MD20\001\002\000\000' | head -c 8 >"$TMP/v.m2"; head -c 400 /dev/zero >>"$TMP/v.m2"
expect_status 1 "$ANIMD" check "$TMP/v.m2"
expect_match 'unsupported M2 version' "$TMP/out"

# Issue 16: the lantern in 260's layout, and in 264's with its .skin and
# its "Closed" sequence in an .anim: the same poses as 256's; a missing
# .anim leaves only that sequence out; a broken .skin fails check with a
# line located in it.
later=$TMP/later
mkdir -p "$later"
"$BUILD/gen/gen_m2_versions" "$later" || { echo "gen_m2_versions failed"; exit 1; }
expect_status 0 "$ANIMD" check -v "$later"
expect_match 'lantern264\.m2: ok' "$TMP/out"
expect_status 0 "$ANIMD" inspect --json "$later/lantern264.m2"
cp "$TMP/out" "$TMP/m2v264.json"
expect_jq '.version == 264 and (.companions | length) == 2 and ([.companions[].status] | unique) == ["found"]' "$TMP/m2v264.json"
expect_jq '.companions[0].kind == "skin" and .companions[1].kind == "anim" and .companions[1].sequence == 1' "$TMP/m2v264.json"
expect_jq '.clips[1].loaded and .clips[1].keys_in == "anim" and .clips[0].keys_in == "model" and .meshes[0].triangle_count == 24' "$TMP/m2v264.json"
for v in 260 264; do
	expect_status 0 "$ANIMD" sample "$later/lantern$v.m2" --time 0.7 --space vertices --json
	cp "$TMP/out" "$TMP/v$v.json"
done
expect_status 0 "$ANIMD" sample "$demo/lantern.m2" --time 0.7 --space vertices --json
cp "$TMP/out" "$TMP/v256.json"
for v in 260 264; do
	jq -e --slurpfile a "$TMP/v256.json" '[.meshes[0].positions, $a[0].meshes[0].positions] | transpose | map(transpose | map(.[0] - .[1] | fabs) | max) | max < 1e-4' "$TMP/v$v.json" >/dev/null && ok ||
		bad "version $v's vertices differ from 256's"
done
mv "$later/lantern2640001-00.anim" "$TMP/saved.anim"
expect_status 0 "$ANIMD" check -v "$later/lantern264.m2"
expect_match 'lantern2640001-00\.anim missing \(sequence 1 not loaded\)' "$TMP/out"
expect_status 0 "$ANIMD" inspect --json "$later/lantern264.m2"
expect_jq '(.clips[1].loaded | not) and .clips[1].keys_in == "anim_missing" and .clips[0].loaded and .companions[1].status == "missing"' "$TMP/out"
expect_status 1 "$ANIMD" sample "$later/lantern264.m2" --clip 1 --time 0
expect_match 'has no clip named "1" \(sequence 1 is not loaded: .*lantern2640001-00\.anim is missing\)' "$TMP/err"
expect_status 0 "$ANIMD" sample "$later/lantern264.m2" --clip 0 --time 0.5
mv "$TMP/saved.anim" "$later/lantern2640001-00.anim"
printf 'NIKS' | dd of="$later/lantern26400.skin" conv=notrunc 2>/dev/null
expect_status 1 "$ANIMD" check "$later"
expect_match 'lantern26400\.skin: offset 0x0: error: not a \.skin file' "$TMP/out"
expect_status 1 "$ANIMD" check --json "$later/lantern264.m2"
expect_jq 'select(.path | endswith("00.skin")) | .ok == false and .error.offset == 0' "$TMP/out"

# .x as Direct3D draws it: a sheared frame kept exact, its local t, r, s
# flagged as only the matrix's split; a bent arm's skinned normals and its
# materials with their triangles.
xfix=tests/fixtures/x
expect_status 0 "$ANIMD" sample "$xfix/sheared.x" --time 0 --space vertices --json
expect_jq '.meshes[0].positions[1] == [1,1,0]' "$TMP/out"
expect_status 0 "$ANIMD" sample "$xfix/sheared.x" --time 0 --space local --json
expect_jq '(.joints[] | select(.name == "S") | .trs == false and (.matrix | length) == 12) and (.joints[] | select(.name == "M") | has("trs") | not)' "$TMP/out"
expect_status 0 "$ANIMD" inspect --json "$xfix/sheared.x"
expect_jq '(.skeleton.joints[] | select(.name == "S") | .trs) == false and (.skeleton.joints[] | select(.name == "M") | .trs) == true' "$TMP/out"
expect_status 0 "$ANIMD" sample "$xfix/bent_arm.x" --time 0 --space vertices --json
expect_jq '.meshes[0].positions[2] == [4,1,0] and .meshes[0].normals[2] == [-1,0,0] and (.meshes[0].normals | length) == 4' "$TMP/out"
expect_status 0 "$ANIMD" inspect --json "$xfix/bent_arm.x"
expect_jq '.meshes[0].materials | length == 2 and .[0].name == "Red" and .[1].texture == "skin.png" and .[1].triangle_count == 1' "$TMP/out"
expect_jq '.meshes[0].triangle_materials == [0,1] and .meshes[0].vertex_colors and .meshes[0].normals' "$TMP/out"
# MD5 has no normals: derived from the skinned triangles, unit length.
expect_status 0 "$ANIMD" sample "$demo/walker.md5mesh" --time 0 --space vertices --json
expect_jq '[.meshes[] | (.normals | length) == (.positions | length)] | all' "$TMP/out"
# Each mesh's triangles as the file lists them, indices into its positions.
expect_jq '.meshes[0].triangles[0] == [0,2,1] and (.meshes[0].triangles | length) == 12 and ([.meshes[] | (.positions | length) as $n | .triangles[][] | . < $n] | all)' "$TMP/out"
expect_jq '[.meshes[].normals[] | (.[0]*.[0] + .[1]*.[1] + .[2]*.[2]) | (. - 1) | fabs < 1e-5] | all' "$TMP/out"
expect_status 0 "$ANIMD" inspect --json "$demo/walker.md5mesh"
expect_jq '.meshes[0].normals == false and .meshes[0].normals_derived' "$TMP/out"

# sample --json, every space.
s() { "$ANIMD" sample "$@" --json; }
expect_status 0 s "$demo/walker.md5mesh" --time 0 --space model
expect_jq '.space == "model" and (.joints | length) == 10 and (.joints[3].m | length) == 12' "$TMP/out"
# The bind pose: head at (0, 0, 69) in model space, identity rotation.
expect_jq '.joints[3].m == [1,0,0,0, 0,1,0,0, 0,0,1,69]' "$TMP/out"
expect_status 0 s "$demo/walker.md5anim" --time 0 --space local
expect_jq '.joints[1].t == [0,0,41.5] and .joints[1].r == [0,0,0,1] and .joints[1].s == [1,1,1]' "$TMP/out"
expect_status 0 s "$demo/walker.md5anim" --mesh "$demo/walker.md5mesh" --time 0.5 --space skin
expect_jq '(.joints | length) == 10 and .clip == "walker" and .time == 0.5' "$TMP/out"
expect_status 0 s "$demo/walker.md5anim" --mesh "$demo/walker.md5mesh" --time 0.25 --space vertices
expect_jq '(.meshes | length) == 9 and (.meshes[0].positions | length) == 8 and (.meshes[0].positions[0] | length) == 3' "$TMP/out"
# Root motion: raw at 0.5 s has the root at 30 units; in_place after 1.5
# loops at 90 (within the compressed clip's precision, auto: under 0.0045).
expect_status 0 s "$demo/walker.md5anim" --time 0.5 --space model
expect_jq '(.joints[0].m[3] - 30 | fabs) < 0.0045' "$TMP/out"
expect_status 0 s "$demo/walker.md5anim" --time 1.5 --space model --root-motion in_place
expect_jq '(.joints[0].m[3] - 90 | fabs) < 0.0045 and .cycles == 1' "$TMP/out"
# Past the end wraps for a looping clip; once holds the last frame.
expect_status 0 s "$demo/walker.md5anim" --time 1.25 --space local
expect_jq '(.clip_time - 0.25 | fabs) < 1e-9' "$TMP/out"
expect_status 0 s "$demo/walker.md5anim" --time 7 --space local --loop once
expect_jq '(.clip_time - 1 | fabs) < 1e-9' "$TMP/out"
expect_status 0 s "$demo/orbit.md5camera" --time 0.5
expect_jq '.space == "camera" and (.camera.position | length) == 3 and (.camera.orientation | length) == 4 and (.camera.fov - 63.75 | fabs) < 1e-4' "$TMP/out"

# Refusals are messages with exit 1, not crashes.
expect_status 1 s "$demo/walker.md5anim" --time 0 --space vertices
expect_match 'needs a mesh' "$TMP/err"
expect_status 1 s "$demo/walker.md5anim" --time 0 --clip nope
expect_status 1 s "$demo/walker.md5anim" --mesh "$demo/walker.md5anim" --time 0
expect_status 2 s "$demo/walker.md5anim" --time soon
expect_status 2 s "$demo/walker.md5anim" --time 0 --space sideways

# Layers (sample --blend, --mask, --additive, --ref): each stack against
# the blend worked out here, in jq, from single-clip --space local samples
# (blend.h's formulas: lerp, nlerp on the shortest hemisphere, additive
# d = layer * ref^-1 applied before the pose's rotation).
BLENDJQ='
def lerp($a; $b; $w): [range(0; $a | length)] | map($a[.] * (1 - $w) + $b[.] * $w);
def dot($a; $b): [range(0; 4)] | map($a[.] * $b[.]) | add;
def unit($q): (dot($q; $q) | sqrt) as $n | $q | map(. / $n);
def nlerp($a; $b; $w): (if dot($a; $b) < 0 then $b | map(-.) else $b end) as $c | unit(lerp($a; $c; $w));
def qmul($a; $b): [$a[3]*$b[0] + $a[0]*$b[3] + $a[1]*$b[2] - $a[2]*$b[1], $a[3]*$b[1] - $a[0]*$b[2] + $a[1]*$b[3] + $a[2]*$b[0],
	$a[3]*$b[2] + $a[0]*$b[1] - $a[1]*$b[0] + $a[2]*$b[3], $a[3]*$b[3] - $a[0]*$b[0] - $a[1]*$b[1] - $a[2]*$b[2]];
def conj($q): [-$q[0], -$q[1], -$q[2], $q[3]];
def over($p; $l; $w): {t: lerp($p.t; $l.t; $w), r: nlerp($p.r; $l.r; $w), s: lerp($p.s; $l.s; $w)};
def add($p; $l; $ref; $w): qmul($l.r; conj($ref.r)) as $e | (if $e[3] < 0 then $e | map(-.) else $e end) as $d |
	{t: [range(0; 3)] | map($p.t[.] + $w * ($l.t[.] - $ref.t[.])),
	 r: qmul(nlerp([0, 0, 0, 1]; $d; $w); $p.r),
	 s: [range(0; 3)] | map($p.s[.] * (1 + $w * ((if $ref.s[.] != 0 then $l.s[.] / $ref.s[.] else 1 end) - 1)))};
def near($a; $b): [range(0; $a | length)] | all(($a[.] - $b[.]) | fabs < 2e-5);
def same($x; $y): near($x.t; $y.t) and near($x.r; $y.r) and near($x.s; $y.s);
'
# Single clips: the walker at 0.3 and 0.6 and at its first frame, the
# (still) idle pose.
wm="--mesh $demo/walker.md5mesh"
"$ANIMD" sample "$demo/walker.md5anim" $wm --time 0.3 --space local --json >"$TMP/b_w3.json" && ok || bad "sample walker 0.3"
"$ANIMD" sample "$demo/walker.md5anim" $wm --time 0.6 --space local --json >"$TMP/b_w6.json" && ok || bad "sample walker 0.6"
"$ANIMD" sample "$demo/walker.md5anim" $wm --time 0 --space local --json >"$TMP/b_w0.json" && ok || bad "sample walker 0"
"$ANIMD" sample "$demo/idle.md5anim" $wm --time 0 --space local --json >"$TMP/b_idle.json" && ok || bad "sample idle"
# An override of the idle pose, half, on the spine's subtree; the left leg
# a quarter (a per-root weight); every other joint keeps the walk.
expect_status 0 s "$demo/walker.md5anim" $wm --time 0.3 --blend "$demo/idle.md5anim:0:0.5" --mask spine --mask l_thigh:0.25 --space local
expect_jq '(.layers | length) == 1 and (.layers[0] | .mode == "override" and (.asset | endswith("/idle.md5anim")) and .clip == null and .time == 0 and .weight == 0.5 and .mask == 2) and .bounds == null' "$TMP/out"
jq -s '{got: .[0], w: .[1], i: .[2]}' "$TMP/out" "$TMP/b_w3.json" "$TMP/b_idle.json" >"$TMP/b_case.json"
expect_jq "$BLENDJQ"'
	. as $c | ({spine: 0.5, head: 0.5, l_arm: 0.5, r_arm: 0.5, l_thigh: 0.125, l_shin: 0.125}) as $m |
	[range(0; 10)] | map($c.got.joints[.] as $g | $c.w.joints[.] as $w | $c.i.joints[.] as $i |
		if $m[$g.name] then same($g; over($w; $i; $m[$g.name])) else $g == $w end) |
	all and length == 10' "$TMP/b_case.json"
# The difference is real: the masked spine moved, the walk alone differs.
expect_jq '.got.joints[2].r != .w.joints[2].r' "$TMP/b_case.json"
# Two layers bottom-up: the idle pose at 0.7 everywhere, then the walk at
# 0.6 added at 0.5 against its first frame.
expect_status 0 s "$demo/walker.md5anim" $wm --time 0.3 --blend "$demo/idle.md5anim:0:0.7" --additive "$demo/walker.md5anim:0.6:0.5" --space local
jq -s '{got: .[0], w: .[1], i: .[2], a: .[3], ref: .[4]}' "$TMP/out" "$TMP/b_w3.json" "$TMP/b_idle.json" "$TMP/b_w6.json" "$TMP/b_w0.json" >"$TMP/b_case.json"
expect_jq "$BLENDJQ"'
	. as $c | [range(0; 10)] | map(over($c.w.joints[.]; $c.i.joints[.]; 0.7) as $p |
		same($c.got.joints[.]; add($p; $c.a.joints[.]; $c.ref.joints[.]; 0.5))) | all' "$TMP/b_case.json"
# A named reference pose (--ref): the walk at 0.6 over itself adds nothing.
expect_status 0 s "$demo/walker.md5anim" $wm --time 0.3 --additive "$demo/walker.md5anim:0.6:1" --ref walker:0.6 --space local
jq -s '{got: .[0], w: .[1]}' "$TMP/out" "$TMP/b_w3.json" >"$TMP/b_case.json"
expect_jq "$BLENDJQ"'. as $c | [range(0; 10)] | map(same($c.got.joints[.]; $c.w.joints[.])) | all' "$TMP/b_case.json"
# Clips of the same file by name (an M2's sequences), in model space too.
expect_status 0 s "$demo/lantern.m2" --clip 0 --time 0.4 --blend 0:1.2:0.5 --space model
expect_jq '.layers[0].clip == "0" and (.joints | length) > 0' "$TMP/out"
# Refusals: a bad layer is a usage error (2), an unknown clip or joint, a
# skeleton that does not fit, layers on a camera are errors (1).
expect_status 2 s "$demo/walker.md5anim" --time 0 --blend walker:0:1.5
expect_match 'CLIP:SECONDS:WEIGHT' "$TMP/err"
expect_status 2 s "$demo/walker.md5anim" --time 0 --mask spine
expect_status 2 s "$demo/walker.md5anim" --time 0 --blend walker:0:1 --ref walker
expect_status 1 s "$demo/walker.md5anim" --time 0 --blend nope:0:1
expect_match 'layer 0: .* has no clip named "nope"' "$TMP/err"
expect_status 1 s "$demo/walker.md5anim" --time 0 --blend walker:0:1 --mask nose
expect_match 'layer 0: mask: no joint named "nose"' "$TMP/err"
expect_status 1 s "$demo/walker.md5anim" $wm --time 0 --blend "$TMP/renamed.md5anim:0:1"
expect_match 'layer 0: .* does not fit' "$TMP/err"
expect_status 1 s "$demo/orbit.md5camera" --time 0 --blend orbit:0:1
expect_match 'is a camera' "$TMP/err"

# A DirectX .x file (tests/fixtures/x/arm.x): skeleton, skinned mesh and a
# keyed clip in one file; the lower bone turns 90 degrees about Z in 1 s.
arm=tests/fixtures/x/arm.x
expect_status 0 "$ANIMD" check -v "$arm"
expect_match 'arm\.x: ok \(x, 3 joints, 1 meshes, 1 clip \("wave" 1\.000 s\)\)' "$TMP/out"
expect_status 0 "$ANIMD" inspect --json "$arm"
expect_jq '.format == "x" and .version == 303 and .axes.up == "y_up" and .axes.handedness == "left"' "$TMP/out"
expect_jq '.ticks_per_second == 30 and .ticks_from_file and .note == null' "$TMP/out"
expect_jq '.skeleton.joints | map(.name) == ["Upper", "Lower", "Body"]' "$TMP/out"
expect_jq '.clips[0].name == "wave" and .clips[0].duration == 1 and .meshes[0].skinned and .meshes[0].weight_count == 4' "$TMP/out"
expect_status 0 s "$arm" --time 0.5 --loop once --space vertices
expect_jq '.meshes[0].positions[3] as $p | ($p[0] + 0.70710678 | fabs) < 1e-6 and ($p[1] - 2.70710678 | fabs) < 1e-6' "$TMP/out"
expect_status 0 s "$arm" --time 1 --loop once --space vertices
expect_jq '.meshes[0].positions[3] as $p | ($p[0] + 1 | fabs) < 1e-6 and ($p[1] - 2 | fabs) < 1e-6' "$TMP/out"
# The same arm written as 32- and 64-bit binary and as MSZIP-compressed
# binary (tests/gen/gen_x_seeds) samples to the same vertices.
mkdir -p "$TMP/xseeds"
"$BUILD/gen/gen_x_seeds" "$TMP/xseeds" || bad "gen_x_seeds failed"
for f in seed_bin32.x seed_bin64.x seed_bzip.x; do
	expect_status 0 s "$TMP/xseeds/$f" --time 0.5 --loop once --space vertices
	expect_jq '.meshes[0].positions[3] as $p | ($p[0] + 0.70710678 | fabs) < 1e-6 and ($p[1] - 2.70710678 | fabs) < 1e-6' "$TMP/out"
done
# Cut short, it is refused at a line and column.
head -c 900 "$arm" >"$TMP/cut.x"
expect_status 1 "$ANIMD" check "$TMP/cut.x"
expect_match 'cut\.x:[0-9]+:[0-9]+: error: ' "$TMP/out"

# check --json: one object per line for every file, good or not, the error
# located in fields (text: line and column; binary: the byte offset).
mkdir "$TMP/js"
cp "$demo/walker.md5anim" "$demo/crane.x" "$TMP/js/"
sed 's/^numJoints 10$/numJoints 11/' "$demo/walker.md5anim" >"$TMP/js/broken.md5anim"
head -c 100 "$demo/lantern.m2" >"$TMP/js/cut.m2"
echo hello >"$TMP/js/notes.txt"
expect_status 1 "$ANIMD" check --json "$TMP/js" "$TMP/js/notes.txt" "$TMP/js/gone.md5mesh"
[ "$(wc -l <"$TMP/out")" -eq 6 ] && ok || bad "check --json: expected six lines"
while IFS= read -r l; do
	printf '%s\n' "$l" | jq -e 'type == "object"' >/dev/null 2>&1 && ok || bad "check --json line is not one object: $l"
done <"$TMP/out"
jq -s 'map({(.path | split("/") | last): .}) | add' "$TMP/out" >"$TMP/check.json"
expect_jq '.["broken.md5anim"] | .ok == false and .format == "md5anim" and .summary == null and .error.line == 20 and .error.col == 1 and .error.offset == null and (.error.message | startswith("the block ends after 10 joints")) and (.error.text | test("broken\\.md5anim:20:1: error: the block"))' "$TMP/check.json"
expect_jq '.["cut.m2"] | .ok == false and .format == "m2" and .error.line == null and .error.col == null and .error.offset == 100 and (.error.message | test("inside the 0x144-byte header"))' "$TMP/check.json"
expect_jq '.["walker.md5anim"] | .ok == true and .format == "md5anim" and .error == null and (.summary | test("25 frames at 24 fps"))' "$TMP/check.json"
expect_jq '.["crane.x"] | .ok == true and .format == "x" and .error == null' "$TMP/check.json"
expect_jq '.["notes.txt"] | .ok == false and .format == null and .error.line == null and (.error.message | test("unknown format"))' "$TMP/check.json"
expect_jq '.["gone.md5mesh"] | .ok == false and .format == "md5mesh" and .error.offset == null and .error.message != null' "$TMP/check.json"
# Files in a tree come in name order, as in the text output.
jq -s '[.[].path | split("/") | last][0:4] == ["broken.md5anim", "crane.x", "cut.m2", "walker.md5anim"]' "$TMP/out" >"$TMP/order" 2>/dev/null
grep -qx true "$TMP/order" && ok || bad "check --json does not list a tree in name order"
# All good: exit 0, and the --mesh misfit is located at no line.
expect_status 0 "$ANIMD" check --json "$demo/walker.md5anim"
expect_jq '.ok == true and .path == "'"$demo"'/walker.md5anim"' "$TMP/out"
expect_status 1 "$ANIMD" check --json --mesh "$demo/walker.md5mesh" "$TMP/renamed.md5anim"
expect_jq '.ok == false and .error.line == null and (.error.message | startswith("does not fit mesh"))' "$TMP/out"

finish
