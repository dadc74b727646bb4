import sys; sys.path.insert(0,'/tmp/model')
from fit import lsq
from plan import kinds, ceil
data=[(2001,1001,(16,126,126),(8,126,126),17.0),(2001,1001,(22,43,96),(6,167,167),12.85),(2001,1001,(11,182,182),(12,43,92),11.65),
(2001,1001,(18,75,116),(7,139,145),15.6),(2001,1001,(13,139,157),(10,75,107),14.1),(2001,1001,(26,43,80),(5,201,201),13.6),(2001,1001,(10,201,201),(13,43,84),11.5),
(1001,1001,(8,126,126),(16,63,63),11.1),(1001,1001,(11,43,102),(12,43,92),9.7),(1001,1001,(12,43,92),(11,43,102),8.8),(1001,1001,(10,75,107),(13,43,84),9.2),
(1001,1001,(13,43,84),(10,75,107),8.7),(1001,1001,(11,75,95),(12,43,92),8.0),
(601,301,(13,47,47),(10,31,31),6.4),(601,301,(12,43,52),(11,28,28),6.1),(601,301,(12,43,52),(10,31,31),6.1),(601,301,(22,28,28),(6,43,54),6.3),(601,301,(20,31,31),(6,43,54),6.4)]
def feats(X,Y,cx,cy):
    fx=(11,X-11); fy=(11,Y-11); out=[]
    for w,fw in kinds(cx,X,*fx):
        for h,fh in kinds(cy,Y,*fy):
            R=ceil(fw,32)*ceil(fh,32)
            Fx=(w-fw)*h; Fy=fw*(h-fh)
            out.append((R,Fx,Fy,w,h))
    return out
F=[feats(X,Y,cx,cy) for X,Y,cx,cy,t in data]
ts=[t for *_,t in data]; grp=[(X,Y) for X,Y,*_ in data]
def model(a,b,c,f): return max(R + a*Fx/1024 + b*Fy/1024 + c*(h)/32 for (R,Fx,Fy,w,h) in f)
res=[]
for a in [x/2 for x in range(0,41)]:
  for b in [x/2 for x in range(0,41)]:
    for c in [0,0.5,1,2]:
      xs=[model(a,b,c,f) for f in F]
      err,s=lsq(xs,ts,grp)
      if s>0: res.append((round(err,3),a,b,c,round(s,3)))
res.sort()
for r in res[:10]: print(r)
err,a,b,c,s=res[0]
for (X,Y,cx,cy,t),f in zip(data,F): print(X,Y,cx,cy,t,round(model(a,b,c,f),1))
