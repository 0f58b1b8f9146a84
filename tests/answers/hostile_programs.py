"""Hostile programs for the program check and runner: (label, source, expected).

``{tmp}`` in a source is replaced (``str.replace``, so other braces are literal) by a temporary
directory the tests watch. ``expected`` says which layer must stop the program: ``"refused"``
(the static check), ``"blocked"`` (a run-time guard, after the check let it through),
``"stopped"`` (the time limit), ``"error"`` (it runs and fails on its own, harmlessly),
``"harmless"`` (it runs to the end and changes nothing).
"""
from __future__ import annotations

HOSTILE: list[tuple[str, str, str]] = [
    # imports
    ("import os", "import os\nos.system('touch {tmp}/x')", "refused"),
    ("import subprocess", "import subprocess\nsubprocess.run(['touch', '{tmp}/x'])", "refused"),
    ("import socket", "import socket\nsocket.create_connection(('example.com', 80))", "refused"),
    ("importlib", "import importlib\nimportlib.import_module('os')", "refused"),
    ("builtins module", "import builtins\nbuiltins.open('{tmp}/x', 'w')", "refused"),
    ("ctypes", "import ctypes\nctypes.CDLL(None)", "refused"),
    ("pickle", "import pickle\npickle.dump(df, None)", "refused"),
    ("from pandas.io", "from pandas.io import parquet", "refused"),
    ("from os import", "from os import system\nsystem('touch {tmp}/x')", "refused"),
    ("numpy.lib", "import numpy.lib.npyio as npyio", "refused"),
    ("from numpy import save", "from numpy import save\nsave('{tmp}/x.npy', [1])", "refused"),
    ("sys", "import sys\nsys.modules['os'].system('touch {tmp}/x')", "refused"),
    ("__import__", "__import__('os').system('touch {tmp}/x')", "refused"),
    ("pathlib", "import pathlib\npathlib.Path('{tmp}/x').write_text('x')", "refused"),
    ("relative import", "from . import secrets", "refused"),
    ("itertools endless", "import itertools\nlist(itertools.count())", "refused"),
    ("scipy.io", "import scipy.io\nscipy.io.savemat('{tmp}/x.mat', {})", "refused"),
    # dunder and frame escapes
    ("subclasses", "print(().__class__.__bases__[0].__subclasses__())", "refused"),
    ("df.__dict__", "print(df.__dict__)", "refused"),
    ("print.__self__", "print(print.__self__)", "refused"),
    ("function globals", "f = lambda: 0\nprint(f.__globals__)", "refused"),
    ("generator frame", "g = (x for x in [1])\nprint(g.gi_frame.f_back.f_globals)", "refused"),
    ("__builtins__", "__builtins__['open']('{tmp}/x', 'w')", "refused"),
    ("format fields", "print('{0.__class__.__init__}'.format(df))", "refused"),
    ("format_map", "print('{x}'.format_map(dict(x=df)))", "refused"),
    ("code object", "def f():\n    pass\nprint(f.__code__)", "refused"),
    ("laundered module", "import numpy as np\nm = dict(x=np)['x']\nprint(m.version)", "blocked"),
    # files and network
    ("open", "open('{tmp}/x', 'w').write('x')", "refused"),
    ("read_csv", "import pandas as pd\nprint(pd.read_csv('/etc/passwd'))", "refused"),
    ("to_csv path", "df.to_csv('{tmp}/x.csv')", "refused"),
    ("np.save", "import numpy as np\nnp.save('{tmp}/x.npy', df.values)", "refused"),
    ("read_html", "import pandas as pd\npd.read_html('http://example.com')", "refused"),
    ("to_pickle", "df.to_pickle('{tmp}/x.pkl')", "refused"),
    ("to_parquet", "df.to_parquet('{tmp}/x.parquet')", "refused"),
    ("tofile", "df['sales'].values.tofile('{tmp}/x.bin')", "refused"),
    ("to_json path keyword", "df.to_json(path_or_buf='{tmp}/x.json')", "refused"),
    ("to_string buf", "df.to_string(buf='{tmp}/x.txt')", "refused"),
    ("to_excel", "df.to_excel('{tmp}/x.xlsx')", "refused"),
    ("agg dispatch to a writer", "df.agg('to_pickle', '{tmp}/x.pkl')", "refused"),
    ("apply dispatch to a writer", "df.apply('to_csv', args=('{tmp}/x.csv',))", "refused"),
    ("writer held, called later", "f = df.to_csv\nf('{tmp}/x.csv')", "refused"),
    ("writer in a lambda", "df.apply(lambda r: r.to_csv('{tmp}/x.csv'), axis=1)", "refused"),
    ("writer through a container", "f = dict(x=df)['x']\ng = [f.to_csv][0]\ng('{tmp}/x.csv')",
     "refused"),
    ("laundered writer, text only", "f = dict(x=df)['x']\nw = f.to_csv\n", "refused"),
    # code from text
    ("eval", "eval('1 + 1')", "refused"),
    ("exec", "exec('import os')", "refused"),
    ("compile", "compile('1', 'x', 'exec')", "refused"),
    ("query with @", "x = 1\nprint(df.query('sales > @x'))", "refused"),
    ("df.eval", "print(df.eval('sales * 2'))", "refused"),
    ("pd.eval", "import pandas as pd\nprint(pd.eval('1 + 1'))", "refused"),
    # writes to the user's frame
    ("new column", "df['x'] = 1", "refused"),
    ("loc write", "df.loc[0, 'sales'] = 5", "refused"),
    ("columns replaced", "df.columns = ['a', 'b', 'c', 'd', 'e']", "refused"),
    ("inplace drop", "df.drop(columns=['sales'], inplace=True)", "refused"),
    ("attrs write", "df.attrs['k'] = 1", "refused"),
    ("index name", "df.index.name = 'x'", "refused"),
    ("del column", "del df['sales']", "refused"),
    ("insert", "df.insert(0, 'z', 1)", "refused"),
    ("pop", "df.pop('sales')", "refused"),
    ("update", "df.update(df[['sales']] * 2)", "refused"),
    ("augmented", "df += 1", "refused"),
    ("alias then write", "s = df['sales']\ns.iloc[0] = 100", "refused"),
    ("loop alias", "for d in [df]:\n    d['x'] = 1", "refused"),
    ("walrus alias", "(x := df)['z'] = 1", "refused"),
    ("helper writes its parameter", "def f(d):\n    d['x'] = 1\n    return d\nf(df)",
     "refused"),
    ("copy only on one branch", "if len(df) > 100:\n    df = df.copy()\ndf['x'] = 1",
     "refused"),
    ("laundered frame writes",
     "d = dict(x=df)['x']\nd.loc[0, 'sales'] = 99\nd['new'] = 1\nd.index.name = 'z'\n"
     "d.attrs['k'] = 1\nd.columns.name = 'c'\ndel d['region']\nd.iloc[1, 1] = 0\n"
     "d.sort_values('units', inplace=False)\nprint(len(d))", "harmless"),
    ("laundered numpy write",
     "d = dict(x=df)['x']\na = d['sales'].to_numpy()\na[0] = 99", "error"),
    ("laundered setflags", "d = dict(x=df)['x']\nd['sales'].values.setflags(write=True)",
     "refused"),
    # module and shared-state writes
    ("pandas option", "import pandas as pd\npd.options.display.max_rows = 1", "refused"),
    ("set_option", "import pandas as pd\npd.set_option('display.max_rows', 1)", "refused"),
    ("np.seterr", "import numpy as np\nnp.seterr(all='ignore')", "refused"),
    ("np.random.seed", "import numpy as np\nnp.random.seed(0)", "refused"),
    ("legacy global rng", "import numpy as np\nprint(np.random.rand())", "refused"),
    ("laundered global rng", "import numpy as np\nr = dict(x=np.random)['x']\nprint(r.rand())",
     "blocked"),
    ("sample without seed", "print(df.sample(2))", "refused"),
    ("math.pi", "import math\nmath.pi = 3", "refused"),
    ("laundered math.pi", "import math\nm = dict(x=math)['x']\nm.pi = 3", "blocked"),
    ("class patch", "import pandas as pd\nm = dict(x=pd)['x']\nm.DataFrame.foo = 1", "blocked"),
    ("type patch", "type(df).foo = 1", "refused"),
    ("accessor registration",
     "import pandas as pd\npd.api.extensions.register_dataframe_accessor('x')", "refused"),
    # getattr tricks, namespaces, classes
    ("getattr", "getattr(df, 'to_csv')('{tmp}/x.csv')", "refused"),
    ("globals", "print(globals())", "refused"),
    ("vars", "print(vars())", "refused"),
    ("locals", "print(locals())", "refused"),
    ("lambda smuggling open", "f = lambda: open('{tmp}/x', 'w')\nf()", "refused"),
    ("string-built name", "n = 'to_' + 'csv'\ndf.agg(n, '{tmp}/x.csv')", "refused"),
    ("joined name", "df.agg(''.join(['to_', 'pickle']), '{tmp}/x.pkl')", "refused"),
    ("named agg to a writer", "print(df.groupby('region').agg(x=('sales', 'to_pickle')))",
     "refused"),
    ("three-argument type", "X = type('X', (), {})", "refused"),
    ("class statement", "class X:\n    pass", "refused"),
    ("with statement", "with open('{tmp}/x', 'w') as f:\n    f.write('x')", "refused"),
    ("global statement", "def f():\n    global df\n    df = 1\nf()", "refused"),
    ("plot", "df.plot()", "refused"),
    ("style", "print(df.style.to_html())", "refused"),
    ("print to a file", "print('x', file=df)", "blocked"),
    # time and size
    ("infinite loop", "while True:\n    pass", "stopped"),
    ("loop swallowing errors",
     "while True:\n    try:\n        x = 1\n    except Exception:\n        pass", "stopped"),
    ("bare except", "try:\n    x = 1\nexcept:\n    pass", "refused"),
    ("except BaseException",
     "while True:\n    try:\n        x = 1\n    except BaseException:\n        pass", "refused"),
    ("recursion", "def f():\n    return f()\nf()", "error"),
    ("huge power", "x = 10 ** 10 ** 10", "refused"),
    ("huge string", "x = 'x' * 10 ** 10", "refused"),
    ("huge range", "print(sum(range(10 ** 12)))", "refused"),
    ("huge array", "import numpy as np\nx = np.zeros(10 ** 11)", "refused"),
    ("huge list at run time", "n = 10 ** 6\ns = [0] * (n * n)", "blocked"),
    ("huge pow at run time", "n = 10 ** 6\nx = pow(n, n)", "blocked"),
    ("huge range at run time", "n = 10 ** 12\nprint(sum(range(n)))", "blocked"),
    ("oversized source", "x = 1\n" * 2000, "refused"),
]

# Writes into storage that Copy-on-Write does not track: extension arrays handed out by
# ``.array``/``.values``, the base of a read-only view, the writeable flag.
HOSTILE += [
    ("array write", "d = dict(x=df)['x']\nd['sales'].array[0] = 99", "harmless"),
    ("nullable values write", "d = dict(x=df)['x']\nv = d['stock'].values\nv[0] = 99",
     "harmless"),
    ("categorical values write", "d = dict(x=df)['x']\nv = d['kind'].values\nv[0] = 'y'",
     "harmless"),
    ("tz array write", "d = dict(x=df)['x']\nv = d['at'].array\nv[1] = v[0]\nv[2] = None",
     "harmless"),
    ("array fillna in place", "d = dict(x=df)['x']\nv = d['stock'].array\n"
     "v.fillna(0)\nw = v.T\nw[0] = 5", "harmless"),
    ("index array write", "d = dict(x=df)['x']\nv = d.index.array\nv[0] = 99", "harmless"),
    ("sparse values write", "d = dict(x=df)['x']\nv = d['thin'].sparse.sp_values\nv[0] = 99",
     "error"),
    ("index asi8 write", "d = dict(x=df)['x']\nv = d['at'].dt.tz_localize(None)\n"
     "i = dict(x=d)['x'].set_index('when').index\nprint(len(i))", "harmless"),
    ("view flags flipped", "d = dict(x=df)['x']\nv = d['sales'].values\nv.flags.writeable = True",
     "refused"),
    ("view base", "d = dict(x=df)['x']\nb = d['sales'].values.base\nb[0] = 77", "refused"),
    ("pd.array copy=False", "import pandas as pd\nd = dict(x=df)['x']\n"
     "a = pd.array(d['stock'], copy=False)\na[0] = 5", "refused"),
    ("pd.array positional copy", "import pandas as pd\nd = dict(x=df)['x']\n"
     "a = pd.array(d['stock'], None, False)\na[0] = 5", "harmless"),
    ("keyword splat", "kw = dict(inplace=True)\ndf.dropna(**kw)", "refused"),
    ("rvs without seed", "from scipy import stats\nprint(stats.norm.rvs(size=3))", "refused"),
    ("sample with None seed", "print(df.sample(2, random_state=None))", "refused"),
]

HOSTILE += [
    ("catastrophic regex", "import re\nprint(re.match(r'(a+)+$', 'a' * 30 + 'b'))", "refused"),
    ("catastrophic str.contains", "print(df['region'].str.contains(r'(\\w*)*x').sum())",
     "refused"),
]

# Objects a module holds, reached through a container so the static check cannot see them.
HOSTILE += [
    ("laundered module dict", "import numpy as np\nd = dict(x=np.sctypeDict)['x']\nd.clear()",
     "blocked"),
    ("laundered module dict item", "import numpy as np\nd = dict(x=np.sctypeDict)['x']\n"
     "d['mine'] = 1", "blocked"),
    ("laundered distribution", "from scipy import stats\nn = dict(x=stats.norm)['x']\nn.a = 5",
     "blocked"),
    ("module dict", "import numpy as np\nnp.sctypeDict.clear()", "refused"),
]

HOSTILE += [
    ("exact factorial", "import math\nn = 10 ** 7\nprint(math.factorial(n))", "blocked"),
    ("exact factorial imported", "from math import comb\nn = 10 ** 7\nprint(comb(n, n // 2))",
     "blocked"),
    ("math through fractions", "import fractions\nm = fractions.math\nprint(m.factorial(10 ** 7))",
     "blocked"),
]

# str.format reads attributes named in text: only literal templates without field access.
HOSTILE += [
    ("format held, not called", "import numpy as np\n"
     "print(list(map('{0.__globals__}'.format, [np.mean])))", "refused"),
    ("format of a built template", "import numpy as np\nt = '{0.' + '__globals__}'\n"
     "print(t.format(np.mean))", "refused"),
    ("format laundered template", "import numpy as np\nt = dict(x='{0.' + '__globals__}')['x']\n"
     "f = [t][0]\nprint(f.upper().lower().format(np.mean))", "refused"),
    ("str.format unbound", "import numpy as np\nprint(str.format('{0.__globals__}', np.mean))",
     "refused"),
    ("format nested in spec", "print('{0:{1.real}}'.format(1, 2))", "refused"),
]

HOSTILE += [
    ("math imported from fractions",
     "from fractions import math\nn = 10 ** 7\nprint(math.factorial(n))", "blocked"),
]
