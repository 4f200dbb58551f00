"""The deterministic move table of the engine's C test (tests/search_tuples.inc): rule set,
position, spec, the move. The same on every run and platform; copied here so that an
installed package checks it too (in a source checkout, test_search checks that this copy is
the C test's table)."""

from typing import List, Tuple

TUPLES: List[Tuple[str, str, str, str]] = [
    ('halusa',
     'halusa:remainder=last-mover,quiet=100 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0',
     'search:nodes=5000,tt=1', 'c1'),
    ('halusa',
     'halusa:remainder=last-mover,quiet=100 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0',
     'search:depth=3,tt=1', 'b1'),
    ('halusa',
     'halusa:remainder=last-mover,quiet=100 4,12,1,0,0,12/2,3,14,3,4,1 0 4,12 quiet=0',
     'search:nodes=5000,tt=1', 'f1'),
    ('halusa',
     'halusa:remainder=last-mover,quiet=100 4,12,1,0,0,12/2,3,14,3,4,1 0 4,12 quiet=0',
     'search:depth=3,tt=1', 'b1'),
    ('hus',
     'hus:width=8,laps=10000,quiet=100 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/'
     '2,2,2,2,2,2,2,2 0 24,24 quiet=0',
     'search:nodes=5000,tt=1', 'e2'),
    ('hus',
     'hus:width=8,laps=10000,quiet=100 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/'
     '2,2,2,2,2,2,2,2 0 24,24 quiet=0',
     'search:depth=3,tt=1', 'b1'),
    ('hus',
     'hus:width=8,laps=10000,quiet=100 0,0,1,2,1,0,0,0/2,1,1,0,1,1,0,0/0,4,1,2,8,5,4,4/'
     '2,1,2,1,2,1,0,1 0 38,10 quiet=3',
     'search:nodes=5000,tt=1', 'e2'),
    ('hus',
     'hus:width=8,laps=10000,quiet=100 0,0,1,2,1,0,0,0/2,1,1,0,1,1,0,0/0,4,1,2,8,5,4,4/'
     '2,1,2,1,2,1,0,1 0 38,10 quiet=3',
     'search:depth=3,tt=1', 'e2'),
    ('hawalis',
     'hawalis:variant=oman,laps=10000,quiet=100 2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,2/'
     '2,2,2,2,2,2,2 0 0,0 quiet=0',
     'search:nodes=5000,tt=1', 'b2'),
    ('hawalis',
     'hawalis:variant=oman,laps=10000,quiet=100 2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,2/'
     '2,2,2,2,2,2,2 0 0,0 quiet=0',
     'search:depth=3,tt=1', 'c2'),
    ('hawalis',
     'hawalis:variant=oman,laps=10000,quiet=100 1,1,2,0,2,0,0/1,0,3,1,6,0,1/1,1,1,0,3,1,1/'
     '0,0,0,1,1,2,2 0 10,14 quiet=1',
     'search:nodes=5000,tt=1', 'g1'),
    ('hawalis',
     'hawalis:variant=oman,laps=10000,quiet=100 1,1,2,0,2,0,0/1,0,3,1,6,0,1/1,1,1,0,3,1,1/'
     '0,0,0,1,1,2,2 0 10,14 quiet=1',
     'search:depth=3,tt=1', 'f1'),
    ('walak-pussa',
     'walak-pussa:rounds=single,laps=10000,quiet=100 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0,0 quiet=0',
     'search:nodes=5000,tt=1', 'a1'),
    ('walak-pussa',
     'walak-pussa:rounds=single,laps=10000,quiet=100 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0,0 quiet=0',
     'search:depth=3,tt=1', 'b1'),
    ('walak-pussa',
     'walak-pussa:rounds=single,laps=10000,quiet=100 0,2,0,0,4,0,0/0,0,0,2,3,1,5 0 28,11 quiet=0',
     'search:nodes=5000,tt=1', 'e1'),
    ('walak-pussa',
     'walak-pussa:rounds=single,laps=10000,quiet=100 0,2,0,0,4,0,0/0,0,0,2,3,1,5 0 28,11 quiet=0',
     'search:depth=3,tt=1', 'e1'),
    ('tab',
     'tab:width=13 O,O,O,O,O,O,O,O,O,O,O,O,O/.,.,.,.,.,.,.,.,.,.,.,.,./'
     '.,.,.,.,.,.,.,.,.,.,.,.,./X,X,X,X,X,X,X,X,X,X,X,X,X 1 0,0 throws=1,2,6',
     'search:nodes=5000,tt=1', 'a4+1'),
    ('tab',
     'tab:width=13 O,O,O,O,O,O,O,O,O,O,O,O,O/.,.,.,.,.,.,.,.,.,.,.,.,./'
     '.,.,.,.,.,.,.,.,.,.,.,.,./X,X,X,X,X,X,X,X,X,X,X,X,X 1 0,0 throws=1,2,6',
     'search:depth=3,tt=1', 'a4+1'),
    ('tab',
     'tab:width=13 .,O,O,O,O,O,O,O,O,O,O,O,O/.,.,.,.,.,.,.,.,.,.,.,.,./'
     '.,.,.,.,.,.,.,.,.,.,o,.,./X,X,X,X,X,X,X,X,X,X,X,X,X 1 0,0 throws=2',
     'search:nodes=5000,tt=1', 'k2+2'),
    ('tab',
     'tab:width=13 .,O,O,O,O,O,O,O,O,O,O,O,O/.,.,.,.,.,.,.,.,.,.,.,.,./'
     '.,.,.,.,.,.,.,.,.,.,o,.,./X,X,X,X,X,X,X,X,X,X,X,X,X 1 0,0 throws=2',
     'search:depth=3,tt=1', 'k2+2'),
]
