-- An errdex database of schema version 4 (SQLite), as errdex 3d5666e wrote it: see
-- tests/data/README.md. Its search index last, as that errdex made it.
BEGIN TRANSACTION;
CREATE TABLE enrichments (
    site_id TEXT NOT NULL,
    model TEXT NOT NULL,
    created TEXT NOT NULL,
    text TEXT NOT NULL,
    provenance TEXT NOT NULL,
    PRIMARY KEY (site_id, model)
);
CREATE TABLE failures (
    source TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    failed_at TEXT NOT NULL
);
CREATE TABLE key_counts (
    key TEXT PRIMARY KEY,
    df INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO "key_counts" VALUES('bad',1);
INSERT INTO "key_counts" VALUES('bad value',1);
INSERT INTO "key_counts" VALUES('cannot',1);
INSERT INTO "key_counts" VALUES('cannot write',1);
INSERT INTO "key_counts" VALUES('value',1);
INSERT INTO "key_counts" VALUES('write',1);
CREATE TABLE members (
    snapshot_id INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
    record_id INTEGER NOT NULL REFERENCES records (id),
    ord INTEGER NOT NULL,
    report_url TEXT,
    PRIMARY KEY (snapshot_id, record_id)
) WITHOUT ROWID;
INSERT INTO "members" VALUES(1,1,0,'https://github.com/example/pkg/issues/new?title=ValueError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.0.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60ValueError%60%0A%0A%60%60%60%0Abad+value%3A+%7Bself.x%7D%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fconfig.py%23L30+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60aaaaaaaaaaaaaaaa%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E');
INSERT INTO "members" VALUES(1,2,1,'https://github.com/example/pkg/issues/new?title=errors.ConfigError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.0.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60errors.ConfigError%60%0A%0A%60%60%60%0Abad+value%3A+%7Bself.x%7D%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fconfig.py%23L5+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60bbbbbbbbbbbbbbbb%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E');
INSERT INTO "members" VALUES(1,3,2,'https://github.com/example/pkg/issues/new?title=OSError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.0.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60OSError%60%0A%0A%60%60%60%0Abad+value%3A+%7Bself.x%7D%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fio%2Fread.py%23L7+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60cccccccccccccccc%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E');
INSERT INTO "members" VALUES(1,4,3,'https://github.com/example/pkg/issues/new?title=ValueError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.0.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60ValueError%60%0A%0A%60%60%60%0A++cannot+write+%7B%7B%7D%7D++%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fio%2Fwrite.py%23L9+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60dddddddddddddddd%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E');
INSERT INTO "members" VALUES(1,5,4,'https://github.com/example/pkg/issues/new?title=ValueError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.0.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60ValueError%60%0A%0A%60%60%60%0A%28no+message%29%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fmain.py%23L1+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60eeeeeeeeeeeeeeee%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E');
INSERT INTO "members" VALUES(2,6,0,'https://github.com/example/pkg/issues/new?title=ValueError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.1.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60ValueError%60%0A%0A%60%60%60%0Abad+value%3A+%7Bself.x%7D%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fconfig.py%23L33+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60aaaaaaaaaaaaaaaa%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E');
INSERT INTO "members" VALUES(2,7,1,'https://github.com/example/pkg/issues/new?title=errors.ConfigError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.1.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60errors.ConfigError%60%0A%0A%60%60%60%0Abad+value%3A+%7Bself.x%7D%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fconfig.py%23L8+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60bbbbbbbbbbbbbbbb%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E');
INSERT INTO "members" VALUES(2,8,2,'https://github.com/example/pkg/issues/new?title=OSError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.1.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60OSError%60%0A%0A%60%60%60%0Abad+value%3A+%7Bself.x%7D%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fio%2Fread.py%23L10+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60cccccccccccccccc%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E');
INSERT INTO "members" VALUES(2,9,3,'https://github.com/example/pkg/issues/new?title=ValueError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.1.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60ValueError%60%0A%0A%60%60%60%0A++cannot+write+%7B%7B%7D%7D++%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fio%2Fwrite.py%23L12+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60dddddddddddddddd%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E');
INSERT INTO "members" VALUES(2,10,4,'https://github.com/example/pkg/issues/new?title=ValueError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.1.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60ValueError%60%0A%0A%60%60%60%0A%28no+message%29%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fmain.py%23L4+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60eeeeeeeeeeeeeeee%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E');
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT INTO "meta" VALUES('schema_version','4');
INSERT INTO "meta" VALUES('generation','2');
CREATE TABLE records (
    id INTEGER PRIMARY KEY,
    digest TEXT NOT NULL UNIQUE,
    site_id TEXT NOT NULL,
    file TEXT NOT NULL,
    line INTEGER NOT NULL,
    function TEXT NOT NULL,
    kind TEXT NOT NULL,
    exc_name TEXT NOT NULL,
    exc_qualname TEXT NOT NULL,
    exc_short TEXT NOT NULL,        -- last dotted component of the qualname
    message_text TEXT,              -- message.text; NULL when the site has no message
    message_literal TEXT,           -- static messages only: literal text, stripped
    title TEXT,                     -- NULL until the explain stage adds titles
    body TEXT NOT NULL,             -- the JSON record without package, repo and link
    -- the match index's part of a site (see _match_index.py)
    template_id INTEGER,            -- templates.id; NULL when the site has no message
    base TEXT,                      -- the file's base name, for traceback frames
    exc_bases TEXT,                 -- qualified names of the exception's bases, space-joined
    holes TEXT                      -- JSON: hole expressions of each group between literals
);
INSERT INTO "records" VALUES(1,'e5a993fb18c0eb12736902da0ac1160e7d9544e4a23bbceb98a714479fac65ae','aaaaaaaaaaaaaaaa','pkg/config.py',30,'Config.check','raise','ValueError','builtins.ValueError','ValueError','bad value: {self.x}',NULL,'Bad value','{"id":"aaaaaaaaaaaaaaaa","exception":{"name":"ValueError","qualname":"builtins.ValueError","bases":[]},"kind":"raise","message":{"text":"bad value: {self.x}","parts":[{"text":"bad value: "},{"hole":"self.x","conversion":null,"format_spec":null}],"static":false,"source":"raise"},"location":{"file":"pkg/config.py","line":30,"end_line":30,"function":"Config.check"},"snippet":{"start_line":29,"lines":["if self.x < 0:","    raise ..."]},"guard":[{"kind":"if","test":"self.x < 0","negated":false,"line":29}],"inputs":[],"title":"Bad value","explanation":{"what_it_means":"m","when_it_happens":"w","solutions":["Report it: https://github.com/example/pkg/issues/new?title=ValueError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.0.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60ValueError%60%0A%0A%60%60%60%0Abad+value%3A+%7Bself.x%7D%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fconfig.py%23L30+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60aaaaaaaaaaaaaaaa%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E"],"common_situations":[],"call_paths":[],"provenance":"static","fixes":[]},"tests":[],"related":[],"report_issue_url":null}',1,'config.py','','[["self.x"]]');
INSERT INTO "records" VALUES(2,'c1fbfc60a20aa7039d57760c82ce8fd62b077af2f72e3c1c3ab74a8592621c21','bbbbbbbbbbbbbbbb','pkg/config.py',5,'Config.check','raise','errors.ConfigError','pkg.errors.ConfigError','ConfigError','bad value: {self.x}',NULL,'Bad value','{"id":"bbbbbbbbbbbbbbbb","exception":{"name":"errors.ConfigError","qualname":"pkg.errors.ConfigError","bases":[]},"kind":"raise","message":{"text":"bad value: {self.x}","parts":[{"text":"bad value: "},{"hole":"self.x","conversion":null,"format_spec":null}],"static":false,"source":"raise"},"location":{"file":"pkg/config.py","line":5,"end_line":5,"function":"Config.check"},"snippet":{"start_line":4,"lines":["if self.x < 0:","    raise ..."]},"guard":[{"kind":"if","test":"self.x < 0","negated":false,"line":4}],"inputs":[],"title":"Bad value","explanation":{"what_it_means":"m","when_it_happens":"w","solutions":["Report it: https://github.com/example/pkg/issues/new?title=errors.ConfigError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.0.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60errors.ConfigError%60%0A%0A%60%60%60%0Abad+value%3A+%7Bself.x%7D%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fconfig.py%23L5+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60bbbbbbbbbbbbbbbb%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E"],"common_situations":[],"call_paths":[],"provenance":"static","fixes":[]},"tests":[],"related":[],"report_issue_url":null}',1,'config.py','','[["self.x"]]');
INSERT INTO "records" VALUES(3,'6a1de635a72a777cbeae2332dade0d51f6aa4f012ffa3517fe9eda7646531178','cccccccccccccccc','pkg/io/read.py',7,'Config.check','raise','OSError','builtins.OSError','OSError','bad value: {self.x}',NULL,'Bad value','{"id":"cccccccccccccccc","exception":{"name":"OSError","qualname":"builtins.OSError","bases":[]},"kind":"raise","message":{"text":"bad value: {self.x}","parts":[{"text":"bad value: "},{"hole":"self.x","conversion":null,"format_spec":null}],"static":false,"source":"raise"},"location":{"file":"pkg/io/read.py","line":7,"end_line":7,"function":"Config.check"},"snippet":{"start_line":6,"lines":["if self.x < 0:","    raise ..."]},"guard":[{"kind":"if","test":"self.x < 0","negated":false,"line":6}],"inputs":[],"title":"Bad value","explanation":{"what_it_means":"m","when_it_happens":"w","solutions":["Report it: https://github.com/example/pkg/issues/new?title=OSError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.0.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60OSError%60%0A%0A%60%60%60%0Abad+value%3A+%7Bself.x%7D%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fio%2Fread.py%23L7+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60cccccccccccccccc%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E"],"common_situations":[],"call_paths":[],"provenance":"static","fixes":[]},"tests":[],"related":[],"report_issue_url":null}',1,'read.py','','[["self.x"]]');
INSERT INTO "records" VALUES(4,'bf54d19ccdb6f8652944f0313c5b7de7c451ab67bcb55ea828e022603bd73e8d','dddddddddddddddd','pkg/io/write.py',9,'Config.check','raise','ValueError','builtins.ValueError','ValueError','  cannot write {{}}  ','cannot write {}','Bad value','{"id":"dddddddddddddddd","exception":{"name":"ValueError","qualname":"builtins.ValueError","bases":[]},"kind":"raise","message":{"text":"  cannot write {{}}  ","parts":[{"text":"  cannot write {}  "}],"static":true,"source":"raise"},"location":{"file":"pkg/io/write.py","line":9,"end_line":9,"function":"Config.check"},"snippet":{"start_line":8,"lines":["if self.x < 0:","    raise ..."]},"guard":[{"kind":"if","test":"self.x < 0","negated":false,"line":8}],"inputs":[],"title":"Bad value","explanation":{"what_it_means":"m","when_it_happens":"w","solutions":["Report it: https://github.com/example/pkg/issues/new?title=ValueError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.0.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60ValueError%60%0A%0A%60%60%60%0A++cannot+write+%7B%7B%7D%7D++%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fio%2Fwrite.py%23L9+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60dddddddddddddddd%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E"],"common_situations":[],"call_paths":[],"provenance":"static","fixes":[]},"tests":[],"related":[],"report_issue_url":null}',2,'write.py','','[]');
INSERT INTO "records" VALUES(5,'9d166ff63ed519384d74ffae6b060f66c93c671f240a0d0f19e6ff81bad0d1a2','eeeeeeeeeeeeeeee','pkg/main.py',1,'Config.check','raise','ValueError','builtins.ValueError','ValueError',NULL,NULL,'Bad value','{"id":"eeeeeeeeeeeeeeee","exception":{"name":"ValueError","qualname":"builtins.ValueError","bases":[]},"kind":"raise","message":null,"location":{"file":"pkg/main.py","line":1,"end_line":1,"function":"Config.check"},"snippet":{"start_line":0,"lines":["if self.x < 0:","    raise ..."]},"guard":[{"kind":"if","test":"self.x < 0","negated":false,"line":0}],"inputs":[],"title":"Bad value","explanation":{"what_it_means":"m","when_it_happens":"w","solutions":["Report it: https://github.com/example/pkg/issues/new?title=ValueError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.0.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60ValueError%60%0A%0A%60%60%60%0A%28no+message%29%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fmain.py%23L1+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60eeeeeeeeeeeeeeee%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E"],"common_situations":[],"call_paths":[],"provenance":"static","fixes":[]},"tests":[],"related":[],"report_issue_url":null}',NULL,'main.py','',NULL);
INSERT INTO "records" VALUES(6,'394501a39666639b26c908a11222676a96a96e23607f47f8826205c1f37ef136','aaaaaaaaaaaaaaaa','pkg/config.py',33,'Config.check','raise','ValueError','builtins.ValueError','ValueError','bad value: {self.x}',NULL,'Bad value','{"id":"aaaaaaaaaaaaaaaa","exception":{"name":"ValueError","qualname":"builtins.ValueError","bases":[]},"kind":"raise","message":{"text":"bad value: {self.x}","parts":[{"text":"bad value: "},{"hole":"self.x","conversion":null,"format_spec":null}],"static":false,"source":"raise"},"location":{"file":"pkg/config.py","line":33,"end_line":33,"function":"Config.check"},"snippet":{"start_line":29,"lines":["if self.x < 0:","    raise ..."]},"guard":[{"kind":"if","test":"self.x < 0","negated":false,"line":29}],"inputs":[],"title":"Bad value","explanation":{"what_it_means":"m","when_it_happens":"w","solutions":["Report it: https://github.com/example/pkg/issues/new?title=ValueError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.1.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60ValueError%60%0A%0A%60%60%60%0Abad+value%3A+%7Bself.x%7D%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fconfig.py%23L33+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60aaaaaaaaaaaaaaaa%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E"],"common_situations":[],"call_paths":[],"provenance":"static","fixes":[]},"tests":[],"related":[],"report_issue_url":null}',1,'config.py','','[["self.x"]]');
INSERT INTO "records" VALUES(7,'455df9dd2a30a6b4c79996736de114fd5574036b2f1356e39b3a0f0c16703b26','bbbbbbbbbbbbbbbb','pkg/config.py',8,'Config.check','raise','errors.ConfigError','pkg.errors.ConfigError','ConfigError','bad value: {self.x}',NULL,'Bad value','{"id":"bbbbbbbbbbbbbbbb","exception":{"name":"errors.ConfigError","qualname":"pkg.errors.ConfigError","bases":[]},"kind":"raise","message":{"text":"bad value: {self.x}","parts":[{"text":"bad value: "},{"hole":"self.x","conversion":null,"format_spec":null}],"static":false,"source":"raise"},"location":{"file":"pkg/config.py","line":8,"end_line":8,"function":"Config.check"},"snippet":{"start_line":4,"lines":["if self.x < 0:","    raise ..."]},"guard":[{"kind":"if","test":"self.x < 0","negated":false,"line":4}],"inputs":[],"title":"Bad value","explanation":{"what_it_means":"m","when_it_happens":"w","solutions":["Report it: https://github.com/example/pkg/issues/new?title=errors.ConfigError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.1.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60errors.ConfigError%60%0A%0A%60%60%60%0Abad+value%3A+%7Bself.x%7D%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fconfig.py%23L8+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60bbbbbbbbbbbbbbbb%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E"],"common_situations":[],"call_paths":[],"provenance":"static","fixes":[]},"tests":[],"related":[],"report_issue_url":null}',1,'config.py','','[["self.x"]]');
INSERT INTO "records" VALUES(8,'fbc03e98b5399275f8f4633c80fa5f68c7da95d18797cd579e3395a96a35018a','cccccccccccccccc','pkg/io/read.py',10,'Config.check','raise','OSError','builtins.OSError','OSError','bad value: {self.x}',NULL,'Bad value','{"id":"cccccccccccccccc","exception":{"name":"OSError","qualname":"builtins.OSError","bases":[]},"kind":"raise","message":{"text":"bad value: {self.x}","parts":[{"text":"bad value: "},{"hole":"self.x","conversion":null,"format_spec":null}],"static":false,"source":"raise"},"location":{"file":"pkg/io/read.py","line":10,"end_line":10,"function":"Config.check"},"snippet":{"start_line":6,"lines":["if self.x < 0:","    raise ..."]},"guard":[{"kind":"if","test":"self.x < 0","negated":false,"line":6}],"inputs":[],"title":"Bad value","explanation":{"what_it_means":"m","when_it_happens":"w","solutions":["Report it: https://github.com/example/pkg/issues/new?title=OSError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.1.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60OSError%60%0A%0A%60%60%60%0Abad+value%3A+%7Bself.x%7D%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fio%2Fread.py%23L10+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60cccccccccccccccc%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E"],"common_situations":[],"call_paths":[],"provenance":"static","fixes":[]},"tests":[],"related":[],"report_issue_url":null}',1,'read.py','','[["self.x"]]');
INSERT INTO "records" VALUES(9,'e5c1a69e0f44c351c54cd7ebe1b6433a7c836e50767d66b2c14cc1491df13f10','dddddddddddddddd','pkg/io/write.py',12,'Config.check','raise','ValueError','builtins.ValueError','ValueError','  cannot write {{}}  ','cannot write {}','Bad value','{"id":"dddddddddddddddd","exception":{"name":"ValueError","qualname":"builtins.ValueError","bases":[]},"kind":"raise","message":{"text":"  cannot write {{}}  ","parts":[{"text":"  cannot write {}  "}],"static":true,"source":"raise"},"location":{"file":"pkg/io/write.py","line":12,"end_line":12,"function":"Config.check"},"snippet":{"start_line":8,"lines":["if self.x < 0:","    raise ..."]},"guard":[{"kind":"if","test":"self.x < 0","negated":false,"line":8}],"inputs":[],"title":"Bad value","explanation":{"what_it_means":"m","when_it_happens":"w","solutions":["Report it: https://github.com/example/pkg/issues/new?title=ValueError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.1.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60ValueError%60%0A%0A%60%60%60%0A++cannot+write+%7B%7B%7D%7D++%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fio%2Fwrite.py%23L12+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60dddddddddddddddd%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E"],"common_situations":[],"call_paths":[],"provenance":"static","fixes":[]},"tests":[],"related":[],"report_issue_url":null}',2,'write.py','','[]');
INSERT INTO "records" VALUES(10,'5fd74f3b4c96161dce55bf1189747528391078ce5315c914a23db91358f6a0f2','eeeeeeeeeeeeeeee','pkg/main.py',4,'Config.check','raise','ValueError','builtins.ValueError','ValueError',NULL,NULL,'Bad value','{"id":"eeeeeeeeeeeeeeee","exception":{"name":"ValueError","qualname":"builtins.ValueError","bases":[]},"kind":"raise","message":null,"location":{"file":"pkg/main.py","line":4,"end_line":4,"function":"Config.check"},"snippet":{"start_line":0,"lines":["if self.x < 0:","    raise ..."]},"guard":[{"kind":"if","test":"self.x < 0","negated":false,"line":0}],"inputs":[],"title":"Bad value","explanation":{"what_it_means":"m","when_it_happens":"w","solutions":["Report it: https://github.com/example/pkg/issues/new?title=ValueError%3A+Bad+value&body=%2A%2APackage%3A%2A%2A+pkg+1.1.0+%28commit+abc1234%29%0A%2A%2AError%3A%2A%2A+%60ValueError%60%0A%0A%60%60%60%0A%28no+message%29%0A%60%60%60%0A%0A%2A%2ARaised+at%3A%2A%2A+https%3A%2F%2Fgithub.com%2Fexample%2Fpkg%2Fblob%2Fabc1234%2Fpkg%2Fmain.py%23L4+%28%60Config.check%60%29%0A%2A%2Aerrdex+id%3A%2A%2A+%60eeeeeeeeeeeeeeee%60%0A%0A%23%23%23+What+I+did%0A%0A%3C%21--+command%2C+configuration+and+the+full+traceback+--%3E"],"common_situations":[],"call_paths":[],"provenance":"static","fixes":[]},"tests":[],"related":[],"report_issue_url":null}',NULL,'main.py','',NULL);
PRAGMA writable_schema=ON;
CREATE TABLE skipped (
    snapshot_id INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    reason TEXT NOT NULL
);
INSERT INTO "skipped" VALUES(1,'pkg/broken.py','SyntaxError: invalid syntax');
INSERT INTO "skipped" VALUES(2,'pkg/broken.py','SyntaxError: invalid syntax');
CREATE TABLE snapshots (
    id INTEGER PRIMARY KEY,
    package TEXT NOT NULL,
    version TEXT NOT NULL,
    source TEXT NOT NULL,
    repo_url TEXT,
    commit_id TEXT,
    date TEXT,
    files INTEGER NOT NULL,
    sites INTEGER NOT NULL,
    tree_hash TEXT NOT NULL,
    extractor TEXT NOT NULL,
    indexed_at TEXT NOT NULL,
    UNIQUE (package, version)
);
INSERT INTO "snapshots" VALUES(1,'pkg','1.0.0','pypi:pkg==1.0.0','https://github.com/example/pkg','abc1234','2024-05-01',3,5,'h1','x1','2026-12-01T18:05:34+00:00');
INSERT INTO "snapshots" VALUES(2,'pkg','1.1.0','pypi:pkg==1.1.0','https://github.com/example/pkg','abc1234','2024-05-01',3,5,'h1','x1','2026-12-01T18:05:34+00:00');
CREATE TABLE template_keys (
    key TEXT NOT NULL,
    template_id INTEGER NOT NULL,
    PRIMARY KEY (key, template_id)
) WITHOUT ROWID;
INSERT INTO "template_keys" VALUES('bad',1);
INSERT INTO "template_keys" VALUES('bad value',1);
INSERT INTO "template_keys" VALUES('value',1);
INSERT INTO "template_keys" VALUES('cannot',2);
INSERT INTO "template_keys" VALUES('cannot write',2);
INSERT INTO "template_keys" VALUES('write',2);
CREATE TABLE templates (
    id INTEGER PRIMARY KEY,
    lits TEXT NOT NULL UNIQUE,
    lit_len INTEGER NOT NULL
);
INSERT INTO "templates" VALUES(1,'["bad value: ",""]',11);
INSERT INTO "templates" VALUES(2,'["cannot write {}"]',15);
CREATE INDEX skipped_snapshot ON skipped (snapshot_id);
CREATE INDEX records_site_id ON records (site_id);
CREATE INDEX records_message_text ON records (message_text);
CREATE INDEX records_message_literal ON records (message_literal);
CREATE INDEX records_template ON records (template_id);
CREATE INDEX records_base ON records (base);
CREATE INDEX members_record ON members (record_id);
CREATE VIEW sites AS
    SELECT m.snapshot_id AS snapshot_id, m.ord AS ord, m.report_url AS report_url, r.*
    FROM members AS m JOIN records AS r ON r.id = m.record_id;
CREATE INDEX template_keys_template ON template_keys (template_id);
PRAGMA writable_schema=OFF;
CREATE VIRTUAL TABLE sites_fts USING fts5 (message, title, solutions, inputs, exception, function, file, tokenize = 'unicode61 remove_diacritics 0');
INSERT INTO sites_fts (rowid, message, title, solutions, inputs, exception, function, file) SELECT id, message_text, title, (SELECT group_concat(value, ' · ') FROM json_each(body, '$.explanation.solutions')), (SELECT group_concat(json_extract(value, '$.expr'), ', ') FROM json_each(body, '$.inputs')), exc_name || ' ' || exc_qualname, function, file FROM records;
COMMIT;
