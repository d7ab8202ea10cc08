//go:build !purego

#include "textflag.h"

// func xgetbv() uint32
TEXT ·xgetbv(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, ret+0(FP)
	RET

// SETBIT ORs the mask in the low byte of the lane in reg into the byte of
// array (DI) the rest of the lane holds; AX is clobbered.
#define SETBIT(reg) \
	MOVQ reg, AX \
	SHRQ $8, AX \
	ORB  reg, (DI)(AX*1)

// func addProbesAVX2(hashes *uint32, n int, k int, m uint64, bits uint64, array *byte)
//
// Per group of four 32-bit hashes, in the low halves of four 64-bit lanes,
// and per probe h (then h += delta, delta = h rotated right by 17, both
// mod 2^32), the bit position r = h % bits is Lemire's fastmod with 32x32-bit
// multiplications: L = m*h mod 2^64 = mlo*h + (mhi*h)<<32, and
// r = floor(L*bits / 2^64) = (Lh*bits + (Ll*bits)>>32) >> 32 with
// L = Lh*2^32 + Ll, a sum that stays below 2^64 for bits < 2^32. Each
// lane then holds (r>>3)<<8 | 1<<(r&7), its byte and the bit's mask; the
// four lanes go from the vector register to four general ones (VMOVQ,
// VPEXTRQ), then to four ORs into array, which overlap the vector work of
// the next probe. (Through a 32-byte buffer on the stack instead, each
// group of ORs waited on the buffer's loads: on AMD EPYC family 25 the
// kernel took 2 to 12% more time, docs/performance.md.)
TEXT ·addProbesAVX2(SB), NOSPLIT, $0-48
	MOVQ hashes+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ k+16(FP), DX
	MOVQ array+40(FP), DI
	VPBROADCASTQ m+24(FP), Y15   // m (VPMULUDQ uses its low 32 bits)
	VPSRLQ       $32, Y15, Y14   // m >> 32
	VPBROADCASTQ bits+32(FP), Y13
	MOVQ $7, AX
	MOVQ AX, X12
	VPBROADCASTQ X12, Y12        // 7
	MOVQ $1, AX
	MOVQ AX, X11
	VPBROADCASTQ X11, Y11        // 1
	SHRQ $2, CX
	JZ   done

group:
	VPMOVZXDQ (SI), Y0   // h, zero-extended to 64 bits
	VPSRLD    $17, Y0, Y1
	VPSLLD    $15, Y0, Y2
	VPOR      Y2, Y1, Y1 // delta (upper halves stay zero)
	MOVQ      DX, BX

probe:
	VPMULUDQ Y0, Y15, Y3  // mlo*h
	VPMULUDQ Y0, Y14, Y4  // mhi*h
	VPSLLQ   $32, Y4, Y4
	VPADDQ   Y4, Y3, Y3   // L
	VPSRLQ   $32, Y3, Y4  // Lh
	VPMULUDQ Y4, Y13, Y4  // Lh*bits
	VPMULUDQ Y3, Y13, Y5  // Ll*bits
	VPSRLQ   $32, Y5, Y5
	VPADDQ   Y5, Y4, Y4
	VPSRLQ   $32, Y4, Y4  // r = h % bits
	VPAND    Y12, Y4, Y5  // r & 7
	VPSLLVQ  Y5, Y11, Y5  // 1 << (r & 7)
	VPSRLQ   $3, Y4, Y4   // r >> 3, the byte
	VPSLLQ   $8, Y4, Y4
	VPOR     Y5, Y4, Y4   // byte<<8 | mask
	VEXTRACTI128 $1, Y4, X5 // lanes 2 and 3
	VPADDD   Y1, Y0, Y0   // h += delta, mod 2^32 in each lane's low half

	VMOVQ    X4, R8
	VPEXTRQ  $1, X4, R9
	VMOVQ    X5, R10
	VPEXTRQ  $1, X5, R11
	SETBIT(R8)
	SETBIT(R9)
	SETBIT(R10)
	SETBIT(R11)

	DECQ BX
	JNZ  probe

	ADDQ $16, SI
	DECQ CX
	JNZ  group

done:
	VZEROUPPER
	RET
