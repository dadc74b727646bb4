"""Numpy float32 3D free-space stepper of gprMax 4's update (no PML, a gaussiandot z dipole at the
centre of a 50^3 grid of 1 mm; with --magnetic a magnetic dipole, gprMax's MagneticDipole formula):
prints its difference from the given .h5 files per receiver (tests/data/gprmax/README.md, magnetic_dipole_50).
Usage: ref3d.py [--magnetic] [--fma] GPRMAX.h5 OURS.h5"""
# numpy float32 3D free-space gprMax update (no PML), gaussiandot z-dipole; compares with two h5 files
import numpy as np, h5py, sys
f32=np.float32
nx=ny=nz=50; dx=dy=dz=0.001
c=299792458.0; e0=8.8541878128e-12; m0=1.25663706212e-06
MD='--magnetic' in sys.argv
FMA='--fma' in sys.argv  # gprMax's build contracts a*b+c into fused multiply-adds (docs/gprmax-rules.md)
sys.argv=[a for a in sys.argv if a not in ('--magnetic','--fma')]
def fma(a,b,c):
    # fmaf(a,b,c): a*b is exact in float64; one float64 rounding then float32 (a double rounding
    # differs from fmaf only on rare ties)
    return (np.float64(a)*np.asarray(b,np.float64)+np.asarray(c,np.float64)).astype(f32)
dt=float(h5py.File(sys.argv[1]).attrs['dt']); its=int(h5py.File(sys.argv[1]).attrs['Iterations'])
EA=e0/dt; CA=f32(1.0); CB=f32((1/dx)*1/EA); srce=f32(1/EA)
HA=m0/dt; DB=f32((1/dx)*1/HA); srcm=f32(1/HA)
Ex=np.zeros((nx+1,ny+1,nz+1),f32); Ey=Ex.copy(); Ez=Ex.copy(); Hx=Ex.copy(); Hy=Ex.copy(); Hz=Ex.copy()
f=1e9; chi=1/f; zeta=2*np.pi**2*f**2
def w(t): d=t-chi; return -2*zeta*d*np.exp(-zeta*d**2)
si=sj=sk=25
rx=[(28,25,25),(35,35,35)]
out={r:{k:np.zeros(its,f32) for k in 'Ex Ey Ez Hx Hy Hz'.split()} for r in rx}
for n in range(its):
    for r in rx:
        for k,A in zip('Ex Ey Ez Hx Hy Hz'.split(),(Ex,Ey,Ez,Hx,Hy,Hz)): out[r][k][n]=A[r]
    if FMA:  # gprMax: H = fma(c+, d+, c0*H - round(c-*d-)), c0 = 1 here
        dEz=Ez[1:nx+1,1:ny+1,0:nz]-Ez[1:nx+1,0:ny,0:nz]; dEy=Ey[1:nx+1,0:ny,1:nz+1]-Ey[1:nx+1,0:ny,0:nz]
        Hx[1:nx+1,0:ny,0:nz]=fma(DB,dEy,Hx[1:nx+1,0:ny,0:nz]-DB*dEz)
        dEx=Ex[0:nx,1:ny+1,1:nz+1]-Ex[0:nx,1:ny+1,0:nz]; dEz=Ez[1:nx+1,1:ny+1,0:nz]-Ez[0:nx,1:ny+1,0:nz]
        Hy[0:nx,1:ny+1,0:nz]=fma(DB,dEz,Hy[0:nx,1:ny+1,0:nz]-DB*dEx)
        dEy=Ey[1:nx+1,0:ny,1:nz+1]-Ey[0:nx,0:ny,1:nz+1]; dEx=Ex[0:nx,1:ny+1,1:nz+1]-Ex[0:nx,0:ny,1:nz+1]
        Hz[0:nx,0:ny,1:nz+1]=fma(DB,dEx,Hz[0:nx,0:ny,1:nz+1]-DB*dEy)
    else:
        Hx[1:nx+1,0:ny,0:nz]=Hx[1:nx+1,0:ny,0:nz]-DB*(Ez[1:nx+1,1:ny+1,0:nz]-Ez[1:nx+1,0:ny,0:nz])+DB*(Ey[1:nx+1,0:ny,1:nz+1]-Ey[1:nx+1,0:ny,0:nz])
        Hy[0:nx,1:ny+1,0:nz]=Hy[0:nx,1:ny+1,0:nz]-DB*(Ex[0:nx,1:ny+1,1:nz+1]-Ex[0:nx,1:ny+1,0:nz])+DB*(Ez[1:nx+1,1:ny+1,0:nz]-Ez[0:nx,1:ny+1,0:nz])
        Hz[0:nx,0:ny,1:nz+1]=Hz[0:nx,0:ny,1:nz+1]-DB*(Ey[1:nx+1,0:ny,1:nz+1]-Ey[0:nx,0:ny,1:nz+1])+DB*(Ex[0:nx,1:ny+1,1:nz+1]-Ex[0:nx,0:ny,1:nz+1])
    if MD: Hz[si,sj,sk]=f32(np.float64(Hz[si,sj,sk])-np.float64(f32(srcm*f32(w(dt*n))))*(1/(dx*dy*dz)))
    if FMA:  # gprMax: E = fma(-c-, d-, c0*E + round(c+*d+)), c0 = 1 here
        dHz=Hz[0:nx,1:ny,1:nz]-Hz[0:nx,0:ny-1,1:nz]; dHy=Hy[0:nx,1:ny,1:nz]-Hy[0:nx,1:ny,0:nz-1]
        Ex[0:nx,1:ny,1:nz]=fma(-CB,dHy,CA*Ex[0:nx,1:ny,1:nz]+CB*dHz)
        dHx=Hx[1:nx,0:ny,1:nz]-Hx[1:nx,0:ny,0:nz-1]; dHz=Hz[1:nx,0:ny,1:nz]-Hz[0:nx-1,0:ny,1:nz]
        Ey[1:nx,0:ny,1:nz]=fma(-CB,dHz,CA*Ey[1:nx,0:ny,1:nz]+CB*dHx)
        dHy=Hy[1:nx,1:ny,0:nz]-Hy[0:nx-1,1:ny,0:nz]; dHx=Hx[1:nx,1:ny,0:nz]-Hx[1:nx,0:ny-1,0:nz]
        Ez[1:nx,1:ny,0:nz]=fma(-CB,dHx,CA*Ez[1:nx,1:ny,0:nz]+CB*dHy)
    else:
        Ex[0:nx,1:ny,1:nz]=CA*Ex[0:nx,1:ny,1:nz]+CB*(Hz[0:nx,1:ny,1:nz]-Hz[0:nx,0:ny-1,1:nz])-CB*(Hy[0:nx,1:ny,1:nz]-Hy[0:nx,1:ny,0:nz-1])
        Ey[1:nx,0:ny,1:nz]=CA*Ey[1:nx,0:ny,1:nz]+CB*(Hx[1:nx,0:ny,1:nz]-Hx[1:nx,0:ny,0:nz-1])-CB*(Hz[1:nx,0:ny,1:nz]-Hz[0:nx-1,0:ny,1:nz])
        Ez[1:nx,1:ny,0:nz]=CA*Ez[1:nx,1:ny,0:nz]+CB*(Hy[1:nx,1:ny,0:nz]-Hy[0:nx-1,1:ny,0:nz])-CB*(Hx[1:nx,1:ny,0:nz]-Hx[1:nx,0:ny-1,0:nz])
    if MD: continue
    v=f32(w(dt*n+0.5*dt)); s=np.float64(f32(srce*v))*dz*(1/(dx*dy*dz))
    Ez[si,sj,sk]=f32(np.float64(Ez[si,sj,sk])-s)
for path in sys.argv[1:]:
    F=h5py.File(path)
    for g in F['rxs']:
        G=F['rxs'][g]; name=G.attrs['Name']; pos=tuple(np.rint(G.attrs['Position']/dx).astype(int))
        if pos not in out: continue
        pk={'E':max(abs(out[pos][k]).max() for k in ('Ex','Ey','Ez')),'H':max(abs(out[pos][k]).max() for k in ('Hx','Hy','Hz'))}
        print(path, name, ' '.join('%s %.1f'%(k,20*np.log10(abs(G[k][()].astype(float)-out[pos][k]).max()/pk[k[0]]+1e-30)) for k in 'Ex Ey Ez Hx Hy Hz'.split()))
